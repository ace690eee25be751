/**
 * Envoy's own words from `envoy --mode validate` output, without its log decoration, so that
 * the CLI and the demo can show the error verbatim in one place.
 *
 * A rejected bootstrap ends in a `critical` log line such as
 * `[2026-…][123][critical][main] [source/server/config_validation/server.cc:76] error
 * initializing configuration '<file>': Unknown gRPC client cluster 'xds-grpc-typo'`, sometimes
 * followed by more lines of the same message (a proto dump); an accepted one prints
 * `configuration '<file>' OK`.
 */

const LOG_PREFIX = /^\[[^\]]*\]\[\d+\]\[(?:critical|error)\]\[[^\]]*\] \[[^\]]*\] /;

/** Envoy's error message (from the first critical/error line to the end), or the whole output. */
export function envoyValidateError(output: string): string {
  const lines = output.split('\n');
  const first = lines.findIndex((line) => LOG_PREFIX.test(line));
  if (first < 0) return output.trim();
  const message = [(lines[first] ?? '').replace(LOG_PREFIX, ''), ...lines.slice(first + 1)];
  return message.join('\n').trim();
}

/** The `configuration '<file>' OK` line, if Envoy printed one. */
export function envoyValidateOkLine(output: string): string | undefined {
  return output.split('\n').find((line) => /^configuration '.*' OK$/.test(line.trim()));
}
