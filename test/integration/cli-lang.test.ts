/**
 * `mock-istiod serve --lang ko` (or `LANG=ko_*`): serve's own hints in Korean, its log lines
 * (for grep and collectors) in English; `--lang en` wins over the environment.
 */
import { describe, expect, it } from 'vitest';
import { SERVE_TEXT } from '../../src/cli/serve/serve-messages.js';
import { waitFor } from '../../src/util/wait.js';
import {
  FREE_SERVE_PORTS,
  JSON_LOGS,
  logLines,
  useCli,
  waitForServing,
  type CliRun,
} from '../support/fixtures/cli.js';

const cli = useCli();

/** The hint lines serve logs after it listens, once the withhold hint (the last) is there. */
async function hints(run: CliRun): Promise<string[]> {
  const serving = await waitForServing(run);
  const control = `http://127.0.0.1:${serving.control?.port}`;
  const expected = (lang: 'en' | 'ko') => [
    SERVE_TEXT[lang].where({ xds: serving.xds, control }),
    SERVE_TEXT[lang].withholding({ control }),
  ];
  const found = await waitFor(
    () => {
      const msgs = logLines(run).map((line) => line.msg);
      return (['en', 'ko'] as const).find((lang) => expected(lang).every((m) => msgs.includes(m)));
    },
    { timeoutMs: 10_000, description: "serve's start-up and withhold hints" },
  );
  return [found, ...logLines(run).map((line) => line.msg)];
}

const SERVE = ['serve', ...FREE_SERVE_PORTS, ...JSON_LOGS, '--withhold-first'];
const SANS_LOCALE = { LANG: 'C.UTF-8' };

describe('mock-istiod serve --lang', () => {
  it('gives its hints in Korean with --lang ko; its log lines stay in English', async () => {
    const [lang, ...msgs] = await hints(
      cli.start([...SERVE, '--lang', 'ko'], { podEnv: SANS_LOCALE }),
    );
    expect(lang).toBe('ko');
    expect(msgs).toContain('mock istiod is serving');
  });

  it.each([
    // The order of LC_ALL, LC_MESSAGES and LANG is checked in test/unit/lang.test.ts.
    [{ LANG: 'ko_KR.UTF-8' }, [], 'ko'],
    [{ LANG: 'ko_KR.UTF-8' }, ['--lang', 'en'], 'en'],
  ])('with %j and %j speaks %s', async (podEnv, flags, expected) => {
    const [lang] = await hints(cli.start([...SERVE, ...flags], { podEnv }));
    expect(lang).toBe(expected);
  });

  it('refuses another language in one line, exit code 2', async () => {
    const run = await cli.run(['serve', '--lang', 'fr']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'mock-istiod: --lang: expected en or ko, got "fr" (see: mock-istiod --help)\n',
    );
  });
});
