/**
 * The one error class: every code is documented in docs/errors.md (as fastify checks its
 * table of codes against its docs), and the guard tells codes apart.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  isMockIstiodError,
  MockIstiodError,
  MOCK_ISTIOD_ERROR_CODES,
} from '../../src/util/errors.js';
import { packageRoot } from '../../src/util/package-root.js';

/** The codes in the first column of the table under `## Codes`. */
function documentedCodes(): string[] {
  const doc = readFileSync(join(packageRoot(), 'docs', 'errors.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('Codes\n')) ?? '';
  return [...section.matchAll(/^\| `([A-Z_]+)` +\|/gm)].map((m) => m[1] ?? '');
}

describe('MockIstiodError', () => {
  it('has every code, and only those, in the table of docs/errors.md', () => {
    expect(documentedCodes()).toEqual([...MOCK_ISTIOD_ERROR_CODES]);
  });

  it('carries message, code, problems, details and cause', () => {
    const cause = new Error('EADDRINUSE');
    const err = new MockIstiodError('INVALID_REQUEST', 'bad query', {
      details: { status: 400 },
      problems: [{ path: 'type', message: 'unknown type' }],
      cause,
    });
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ name: 'MockIstiodError', code: 'INVALID_REQUEST' });
    expect(err.message).toBe('bad query');
    expect(err.details.status).toBe(400);
    expect(err.problems).toEqual([{ path: 'type', message: 'unknown type' }]);
    expect(err.cause).toBe(cause);
    const plain = MockIstiodError.fromProblems('INVALID_OPTIONS', 'invalid options', [
      { path: 'xdsPort', message: 'expected a port number' },
    ]);
    expect(plain.message).toBe('invalid options: xdsPort: expected a port number');
    expect(plain.details).toBeUndefined();
  });

  it('tells codes apart with isMockIstiodError', () => {
    const err: unknown = new MockIstiodError('USAGE', '--port: expected a port number');
    expect(isMockIstiodError(err)).toBe(true);
    expect(isMockIstiodError(err, 'USAGE')).toBe(true);
    expect(isMockIstiodError(err, 'INVALID_OPTIONS')).toBe(false);
    expect(isMockIstiodError(new Error('--port'), 'USAGE')).toBe(false);
    expect(isMockIstiodError({ code: 'USAGE', message: 'look-alike' })).toBe(false);
  });
});
