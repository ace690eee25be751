/**
 * The classroom demo, run as `npm run demo -- --step --free-ports` would run it (Enter pressed
 * at once): every step's evidence, taken from the real Envoy, the agent and the mock, is what
 * docs/classroom.md promises.
 */
import { describe, expect, it } from 'vitest';
import { runDemo } from '../../scripts/demo.js';
import { expectDemoEvidence } from '../support/demo-evidence.js';

describe('npm run demo', () => {
  it('walks through (a)–(e) with the evidence of each step', { timeout: 90_000 }, async () => {
    const lines: string[] = [];
    let enters = 0;
    const started = Date.now();
    const results = await runDemo({
      ports: 'free',
      step: true,
      waitForEnter: () => {
        enters += 1;
        return Promise.resolve();
      },
      write: (line) => lines.push(line),
    });
    expectDemoEvidence(results, lines);
    expect(enters).toBe(4);
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});
