/**
 * `mock-istiod serve --versioning per-type`: the mock's former version scheme, off by
 * default (istiod's one version per push; conformance "Pushes" and
 * test/conformance/per-type-versions.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { FREE_SERVE_PORTS, JSON_LOGS, useCli, waitForServing } from '../support/fixtures/cli.js';

const cli = useCli();

describe('mock-istiod serve --versioning', () => {
  it('serves with --versioning per-type', async () => {
    const serving = await waitForServing(
      cli.start(['serve', ...FREE_SERVE_PORTS, ...JSON_LOGS, '--versioning', 'per-type']),
    );
    expect(serving.xds).toMatch(/:\d+$/);
  });

  it('refuses another scheme in one line, exit code 2', async () => {
    const run = await cli.run(['serve', '--versioning', 'per-resource']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'mock-istiod: --versioning: expected push or per-type, got "per-resource" (see: mock-istiod --help)\n',
    );
  });
});
