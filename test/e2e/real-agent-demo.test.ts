/**
 * The classroom demo with the real pilot-agent (`npm run demo -- --real-agent --free-ports
 * --step`, Enter pressed at once): the same six steps and the same evidence as with the
 * emulated agent, against the mock serving TLS with its CA.
 */
import { describe, expect, it } from 'vitest';
import { runDemo } from '../../scripts/demo.js';
import { expectDemoEvidence } from '../support/harness/demo-evidence.js';
import { requireIstio } from '../support/harness/real-agent.js';

describe('npm run demo -- --real-agent', () => {
  it('walks through (a)–(f) with the real pilot-agent and the same evidence', async () => {
    requireIstio();
    const lines: string[] = [];
    const results = await runDemo({
      ports: 'free',
      realAgent: true,
      step: true,
      waitForEnter: () => Promise.resolve(),
      write: (line) => lines.push(line),
    });
    expect(lines).toContain('  sidecar: the real pilot-agent in front of a real Envoy');
    expectDemoEvidence(results, lines);
  });
});
