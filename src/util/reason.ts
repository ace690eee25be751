/**
 * Why a request to another process failed, in the few words a one-line message has room for:
 * the system error code behind a `fetch` failure (`ECONNREFUSED`), "no answer in time" for
 * an `AbortSignal.timeout`, else the error's message.
 */
export function reasonOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string } }).cause;
  if (cause?.code) return cause.code;
  if (err instanceof Error && err.name === 'TimeoutError') return 'no answer in time';
  return err instanceof Error ? err.message : String(err);
}
