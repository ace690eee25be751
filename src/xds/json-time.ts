/**
 * The JSON text forms of `google.protobuf.Duration` ("1.5s") and `google.protobuf.Timestamp`
 * (RFC 3339, "1972-01-01T10:00:20.021Z"), parsed to and printed from seconds and nanos.
 * See https://protobuf.dev/programming-guides/json/ (the Duration and Timestamp rows).
 *
 * @internal
 */

export interface SecondsAndNanos {
  seconds: number;
  nanos: number;
}

export const DURATION_FORM = '"<seconds>s", e.g. "1.5s"';
export const TIMESTAMP_FORM = 'an RFC 3339 timestamp, e.g. "1972-01-01T10:00:20.021Z"';

/** duration.proto: seconds must lie within ±10,000 years. */
const MAX_DURATION_SECONDS = 315_576_000_000;
/** timestamp.proto: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z. */
const MIN_TIMESTAMP_SECONDS = -62_135_596_800;
const MAX_TIMESTAMP_SECONDS = 253_402_300_799;

const DURATION_TEXT = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/;
const TIMESTAMP_TEXT =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** Parses "1.5s", "-0.001s", "0s"; returns a problem message for anything else. */
export function parseDuration(text: string): SecondsAndNanos | string {
  const m = DURATION_TEXT.exec(text);
  if (m === null) return `expected a duration ${DURATION_FORM}, found ${JSON.stringify(text)}`;
  const seconds = Number(m[2]);
  if (seconds > MAX_DURATION_SECONDS) return `duration ${text} is out of range (±10000 years)`;
  const nanos = m[3] === undefined ? 0 : Number(m[3].padEnd(9, '0'));
  const sign = m[1] === undefined ? 1 : -1;
  // `|| 0` turns -0 into 0.
  return { seconds: sign * seconds || 0, nanos: sign * nanos || 0 };
}

export function formatDuration(seconds: number, nanos: number): string {
  const negative = seconds < 0 || nanos < 0;
  return `${negative ? '-' : ''}${Math.abs(seconds)}${fraction(Math.abs(nanos))}s`;
}

/** Parses an RFC 3339 date-time (with `Z` or an offset); returns a problem message otherwise. */
export function parseTimestamp(text: string): SecondsAndNanos | string {
  const m = TIMESTAMP_TEXT.exec(text);
  if (m === null) return `expected ${TIMESTAMP_FORM}, found ${JSON.stringify(text)}`;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  const valid =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    hour < 24 &&
    minute < 60 &&
    second < 60;
  if (!valid) return `invalid date or time in timestamp ${JSON.stringify(text)}`;
  const offset = m[8] === undefined ? 0 : (Number(m[9]) * 60 + Number(m[10])) * 60;
  const seconds = date.getTime() / 1000 - (m[8] === '-' ? -offset : offset);
  if (seconds < MIN_TIMESTAMP_SECONDS || seconds > MAX_TIMESTAMP_SECONDS) {
    return `timestamp ${JSON.stringify(text)} is outside years 0001 to 9999`;
  }
  return { seconds, nanos: m[7] === undefined ? 0 : Number(m[7].padEnd(9, '0')) };
}

/** Always UTC with `Z`, with 0, 3, 6 or 9 fractional digits as the JSON mapping prescribes. */
export function formatTimestamp(seconds: number, nanos: number): string {
  const iso = new Date(seconds * 1000).toISOString();
  return `${iso.slice(0, 19)}${fraction(nanos)}Z`;
}

function fraction(nanos: number): string {
  if (nanos === 0) return '';
  const digits = String(nanos).padStart(9, '0');
  if (nanos % 1_000_000 === 0) return `.${digits.slice(0, 3)}`;
  if (nanos % 1_000 === 0) return `.${digits.slice(0, 6)}`;
  return `.${digits}`;
}
