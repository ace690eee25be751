/**
 * `mock-istiod import`, `capture` and `serve --from-config-dump` as a user runs them: a
 * resource file written, the import report on stderr, the captured versions served over ADS,
 * and one clear line for each mistake.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { freePorts } from '../../src/util/ports.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { FREE_SERVE_PORTS, JSON_LOGS, useCli, waitForServing } from '../support/fixtures/cli.js';
import { ISTIOCTL_FIXTURE } from '../support/harness/import-lab.js';
import { sidecarNode } from '../support/fixtures/nodes.js';

const cli = useCli();
const LOCAL = ['--upstream', '127.0.0.1:8080', '--sds', 'plaintext', '--drop-unknown-extensions'];

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('mock-istiod import', () => {
  it('writes a resource file and prints the report', async () => {
    dir = mkdtempSync(join(tmpdir(), 'mock-istiod-import-'));
    const out = join(dir, 'productpage.json');
    const run = await cli.run(['import', ISTIOCTL_FIXTURE, '-o', out, ...LOCAL]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('imported: CDS 6, LDS 4, RDS 1, EDS 2');
    expect(run.stderr).toContain(`wrote ${out}`);
    const written = JSON.parse(readFileSync(out, 'utf8')) as { resources: unknown[] };
    expect(written.resources).toHaveLength(13);
  });

  it('maps endpoints through --upstream-map and moves listener ports', async () => {
    dir = mkdtempSync(join(tmpdir(), 'mock-istiod-import-'));
    const map = join(dir, 'upstreams.yaml');
    writeFileSync(map, "'outbound|9080||details.default.svc.cluster.local': 127.0.0.1:9001\n");
    const run = await cli.run([
      'import',
      ISTIOCTL_FIXTURE,
      '--upstream-map',
      map,
      '--listener-port',
      '9080=29080',
      '--sds',
      'plaintext',
      '--drop-unknown-extensions',
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'endpoint of outbound|9080||details.default.svc.cluster.local 10.244.0.13:9080 → 127.0.0.1:9001',
    );
    expect(run.stderr).toContain(
      '10.244.0.15:9080 of outbound|9080||reviews.default.svc.cluster.local: not in the upstream map, kept',
    );
    expect(run.stderr).toContain('listener 0.0.0.0_9080 0.0.0.0:9080 → 0.0.0.0:29080');
    expect(run.stdout).toMatch(/^# Imported from /);
  });

  it('refuses a dump with extensions upstream Envoy lacks, naming each path', async () => {
    const run = await cli.run(['import', ISTIOCTL_FIXTURE]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`mock-istiod: cannot import ${ISTIOCTL_FIXTURE}:`);
    expect(run.stderr).toContain(
      '  configs[1].dynamic_active_clusters[4].cluster.filters[0]: istio.metadata_exchange',
    );
    expect(run.stderr).not.toContain('    at ');
  });

  it.each([
    ['import', ['import'], 'import: expected one config_dump file'],
    [
      'import a.json b.json',
      ['import', 'a.json', 'b.json'],
      'import: expected one config_dump file',
    ],
    [
      'import dump.json --upstream nowhere',
      ['import', ISTIOCTL_FIXTURE, '--upstream', 'nowhere'],
      '--upstream: expected host:port',
    ],
    [
      'import dump.json --sds ca',
      ['import', ISTIOCTL_FIXTURE, '--sds', 'ca'],
      '--sds ca needs --tls or --tls-dir',
    ],
    [
      'import dump.json --listener-port 15001',
      ['import', ISTIOCTL_FIXTURE, '--listener-port', '15001'],
      '--listener-port: expected <from>=<to>',
    ],
    [
      'import dump.json --original-dst-to-upstream',
      ['import', ISTIOCTL_FIXTURE, '--original-dst-to-upstream'],
      '--original-dst-to-upstream needs --upstream',
    ],
    [
      'serve --from-config-dump dump.json --resources x',
      ['serve', '--from-config-dump', ISTIOCTL_FIXTURE, '--resources', 'x'],
      'choose one',
    ],
    ['capture --admin nowhere', ['capture', '--admin', 'nowhere'], '--admin: expected host:port'],
  ])('%s: a usage mistake, one line, exit 2', async (_label, args, message) => {
    const run = await cli.run(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('mock-istiod capture', () => {
  it('says so when nothing answers on the admin port', async () => {
    const [port] = (await freePorts(1)) as [number];
    const run = await cli.run(['capture', '--admin', `127.0.0.1:${port}`]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^mock-istiod: cannot read http:\/\/127\.0\.0\.1:\d+\/config_dump: /,
    );
  });
});

describe('mock-istiod serve --from-config-dump', () => {
  it('serves the import, at the captured versions with --keep-versions', async () => {
    const run = cli.start([
      'serve',
      '--from-config-dump',
      ISTIOCTL_FIXTURE,
      ...LOCAL,
      '--keep-versions',
      ...FREE_SERVE_PORTS,
      ...JSON_LOGS,
    ]);
    const client = new AdsTestClient((await waitForServing(run)).xds);
    try {
      const stream = client.sotw();
      stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
      const response = await stream.next(10_000);
      expect(response.version_info).toBe('2026-11-30T10:00:00Z/42');
      expect(response.resources).toHaveLength(6);
    } finally {
      client.close();
    }
  });
});
