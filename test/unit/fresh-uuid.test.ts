import { describe, expect, test } from 'vitest';
import { freshUuid, UUIDS_PER_DRAW } from '../../src/util/fresh-uuid.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('freshUuid', () => {
  test('gives version-4 UUIDs, each different, across a fresh draw', () => {
    const seen = new Set<string>();
    // Past one draw's count, so that a new random UUID is drawn on the way.
    for (let i = 0; i < UUIDS_PER_DRAW + 10; i++) seen.add(freshUuid());
    expect(seen.size).toBe(UUIDS_PER_DRAW + 10);
    for (const uuid of [...seen].slice(-20)) expect(uuid).toMatch(V4);
    expect([...seen][0]).toMatch(V4);
  });

  test('starts from a random UUID in every process, not from a fixed one', async () => {
    const { execFileSync } = await import('node:child_process');
    const script = "import('./src/util/fresh-uuid.ts').then((m) => console.log(m.freshUuid()))";
    const run = () =>
      execFileSync(process.execPath, ['--import', 'tsx', '-e', script], {
        encoding: 'utf8',
      }).trim();
    const [a, b] = [run(), run()];
    expect(a).toMatch(V4);
    expect(b).toMatch(V4);
    expect(a).not.toBe(b);
  });
});
