/**
 * A command's failure in one line: `mock-istiod: <message>` on stderr, and the exit code to
 * return (2 for a usage mistake, 1 for the world failing). Thrown usage errors reach the same
 * line through main.ts; this is for the commands that decide the code themselves.
 */
export function fail(message: string, code: number): number {
  process.stderr.write(`mock-istiod: ${message}\n`);
  return code;
}
