/**
 * Small helpers for validating command-line values once, at the boundary, with messages
 * that name the flag and what was expected (a `MockIstiodError` with code `USAGE`).
 */
import { MockIstiodError } from '../util/errors.js';

export function parsePort(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new MockIstiodError('USAGE', `${flag}: expected a port number 0-65535, got "${value}"`);
  }
  return port;
}

export function parseChoice<T extends string>(
  flag: string,
  value: string | undefined,
  choices: readonly T[],
  fallback: T,
): T {
  if (value === undefined || value === '') return fallback;
  if (!(choices as readonly string[]).includes(value)) {
    throw new MockIstiodError(
      'USAGE',
      `${flag}: expected one of ${choices.join(', ')}, got "${value}"`,
    );
  }
  return value as T;
}
