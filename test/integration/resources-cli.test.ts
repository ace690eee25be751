/**
 * `mock-istiod resources get` and `resources set -f <file>`: the resources a running mock
 * serves, read and replaced from the command line (the operations getResources and
 * setResources), with the effect seen by a proxy stream.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { useCli } from '../support/fixtures/cli.js';
import { ack, requestClusters } from '../support/fixtures/handshake.js';
import { it } from '../support/fixtures/test.js';

const cli = useCli();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function resourceFile(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'resources-cli-'));
  dirs.push(dir);
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const EXTRA_CLUSTER = `- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: extra
  type: STATIC
  connect_timeout: 1s
`;

it('gets the sets served, and sets them from a resource file: the proxy is pushed the change', async ({
  mock,
  ads,
}) => {
  const control = ['--control', `http://127.0.0.1:${mock.addresses.control?.port}`];
  const got = await cli.run(['resources', 'get', '-o', 'json', ...control]);
  expect(got.code).toBe(0);
  const sets = (JSON.parse(got.stdout) as { sets: { name: string; resources: unknown[] }[] }).sets;
  expect(sets.map((s) => s.name)).toEqual(['default']);
  expect(sets[0]?.resources.length).toBeGreaterThan(0);

  const stream = ads.sotw();
  ack(stream, await requestClusters(stream));
  const pushed = stream.next();
  const set = await cli.run([
    'resources',
    'set',
    '-f',
    resourceFile('extra.yaml', EXTRA_CLUSTER),
    ...control,
  ]);
  expect(set).toMatchObject({ code: 0, stderr: '' });
  expect(set.stdout).toMatch(/^resources set: version \S+, changed CDS/);
  expect((await pushed).type_url).toBe(CLUSTER_TYPE);
  expect((await pushed).resources).toHaveLength(1);
  expect([...mock.snapshot().get(CLUSTER_TYPE).resources.keys()]).toEqual(['extra']);
});

it('names every problem of a bad file, exits 2, and the last good set keeps serving', async ({
  mock,
}) => {
  const control = ['--control', `http://127.0.0.1:${mock.addresses.control?.port}`];
  const before = mock.snapshot().version;
  const bad = resourceFile(
    'bad.yaml',
    `- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: a
  connect_timeout: soon
`,
  );
  const refused = await cli.run(['resources', 'set', '-f', bad, ...control]);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(
    /^mock-istiod: invalid resources \(the last good set keeps serving\): resources\[0\]\.connect_timeout: /,
  );
  expect(mock.snapshot().version).toBe(before);

  const missing = await cli.run(['resources', 'set', ...control]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toMatch(/-f, --file: required/);
  const unknown = await cli.run(['resources', 'put', ...control]);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toMatch(/resources: unknown subcommand "put"; expected get or set/);
});

it("sends the file's pinned versions with its resources", async ({ mock, ads }) => {
  const control = ['--control', `http://127.0.0.1:${mock.addresses.control?.port}`];
  const stream = ads.sotw();
  ack(stream, await requestClusters(stream));
  const pushed = stream.next();
  const file = resourceFile(
    'pinned.yaml',
    `versions: { CDS: '2' }\nresources:\n${EXTRA_CLUSTER.replace(/^/gm, '  ')}`,
  );
  const set = await cli.run(['resources', 'set', '-f', file, ...control]);
  expect(set).toMatchObject({ code: 0, stderr: '' });
  expect((await pushed).version_info).toBe('2');
  expect(mock.snapshot().get(CLUSTER_TYPE).version).toBe('2');
});
