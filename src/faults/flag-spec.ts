/**
 * Faults written on the command line (`serve --fault …`): either JSON, or a compact form
 * `scenario[:key=value,key=value…]` where `node`, `types`, `after`, `afterResponses` and `id`
 * set the scope, the trigger and the id, and every other key is a parameter. Lists use `+`
 * (`types=CDS+LDS`). Values are read as the parameter's type says (`ms=500`, `jitter=1s`).
 *
 *   --fault withhold:types=LDS
 *   --fault delay:ms=2s,jitter=500ms,seed=7
 *   --fault 'reset:preset=authentication,after=10s'
 */
import type { Result } from '../util/problems.js';

const SCOPE_KEYS = ['node', 'types'];
const TRIGGER_KEYS = ['after', 'afterResponses'];

/** The fault object a flag value stands for (validated later, with `fromText`). */
export function parseFaultFlag(text: string): Result<Record<string, unknown>> {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const value = JSON.parse(trimmed) as unknown;
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        return { ok: true, value: value as Record<string, unknown> };
      }
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return { ok: false, problems: [{ path: '', message: `not valid JSON: ${reason}` }] };
    }
    return { ok: false, problems: [{ path: '', message: 'expected a JSON object' }] };
  }
  const colon = trimmed.indexOf(':');
  const scenario = colon < 0 ? trimmed : trimmed.slice(0, colon);
  const spec: Record<string, unknown> = { scenario };
  const params: Record<string, unknown> = {};
  const scope: Record<string, unknown> = {};
  const rest = colon < 0 ? '' : trimmed.slice(colon + 1);
  for (const pair of rest === '' ? [] : rest.split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      return { ok: false, problems: [{ path: pair, message: 'expected key=value' }] };
    }
    const key = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    if (key === 'id') spec.id = value;
    else if (SCOPE_KEYS.includes(key)) scope[key] = key === 'types' ? value.split('+') : value;
    else if (TRIGGER_KEYS.includes(key)) spec.trigger = { [key]: value };
    else params[key] = value.includes('+') ? value.split('+') : value;
  }
  if (Object.keys(params).length > 0) spec.params = params;
  if (Object.keys(scope).length > 0) spec.scope = scope;
  return { ok: true, value: spec };
}
