/**
 * Kubernetes' `duration.HumanDuration` (k8s.io/apimachinery), which istioctl uses for the
 * age in `SYNCED (2m5s)`: about two to three significant figures, `0s` for a clock slightly
 * ahead, `<invalid>` for a time well in the future.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

function withRest(whole: number, unit: string, rest: number, restUnit: string): string {
  return rest === 0 ? `${whole}${unit}` : `${whole}${unit}${rest}${restUnit}`;
}

export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) return withRest(minutes, 'm', seconds % 60, 's');
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) return withRest(hours, 'h', minutes % 60, 'm');
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return withRest(Math.trunc(hours / 24), 'd', hours % 24, 'h');
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  const years = Math.trunc(hours / 24 / 365);
  if (hours < 24 * 365 * 8) return withRest(years, 'y', Math.trunc(hours / 24) % 365, 'd');
  return `${years}y`;
}
