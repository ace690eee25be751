/**
 * The classroom demo, run as `npm run demo -- --step --free-ports` would run it (Enter pressed
 * at once): every step's evidence, taken from the real Envoys, the agent and the mock, is what
 * docs/classroom.md promises; and once more with `--lang ko`: the narration in Korean, the
 * evidence and the programs' own texts exactly the same.
 */
import { describe, expect, it } from 'vitest';
import { runDemo } from '../../scripts/demo.js';
import { DEMO_TEXT } from '../../scripts/demo-messages.js';
import { STEPS_TEXT } from '../../scripts/demo-steps-messages.js';
import { CLUSTERS_TEXT } from '../../scripts/demo-clusters-messages.js';
import { expectDemoEvidence, FRONTEND_COLLISION } from '../support/harness/demo-evidence.js';

describe('npm run demo', () => {
  it('walks through (a)–(f) with the evidence of each step', { timeout: 90_000 }, async () => {
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
    expect(enters).toBe(5);
    expect(lines).toContain(STEPS_TEXT.en.withheld);
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it(
    'narrates in Korean with --lang ko; Envoy, pilot-agent and kubectl texts unchanged',
    {
      timeout: 90_000,
    },
    async () => {
      const lines: string[] = [];
      const results = await runDemo({
        ports: 'free',
        step: true,
        lang: 'ko',
        waitForEnter: () => Promise.resolve(),
        write: (line) => lines.push(line),
      });
      // The same evidence, and the same lines from Envoy, pilot-agent, kubectl and the mock's log.
      expectDemoEvidence(results, lines);
      expect(lines).toEqual(
        expect.arrayContaining([
          '    PRE_INITIALIZING',
          '    LIVE',
          '    no healthy upstream 503',
          expect.stringMatching(/^ {2}\[kubectl get pod -w\] orders-v1-0 {3}1\/2 {5}Running/),
          expect.stringContaining("Unknown gRPC client cluster 'xds-grpc-typo'"),
          // Go's code name, as istiod writes it (conformance case "Log lines: a NACK …").
          expect.stringMatching(
            /^ {2}\[log\] mock istiod: ADS:LDS: ACK ERROR .* Internal:Error adding/,
          ),
          expect.stringContaining(FRONTEND_COLLISION),
        ]),
      );
      // The narration: every title, and the steps' sentences, in Korean, none in English.
      expect(results.map((r) => r.title)).toEqual(
        (['titleA', 'titleB', 'titleC', 'titleD', 'titleE', 'titleF'] as const).map(
          (key) => DEMO_TEXT.ko[key],
        ),
      );
      for (const text of [DEMO_TEXT.ko.intro, DEMO_TEXT.ko.done, STEPS_TEXT.ko.withheld]) {
        expect(lines).toContain(text);
      }
      expect(lines).toContain(`  → ${STEPS_TEXT.ko.lookRejected}`);
      expect(lines).toContain(CLUSTERS_TEXT.ko.sameKey);
      expect(lines).toContain(
        `  → ${CLUSTERS_TEXT.ko.lookMixed(results[5]!.evidence['orders'] as never)}`,
      );
      const english = [DEMO_TEXT.en.intro, STEPS_TEXT.en.withheld, CLUSTERS_TEXT.en.sameKey];
      expect(lines.filter((line) => english.includes(line))).toEqual([]);
      expect(lines.filter((l) => l.startsWith('━━ (')).every((l) => /[가-힣]/.test(l))).toBe(true);
    },
  );
});
