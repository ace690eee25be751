/**
 * Pinned versions (docs/resources.md, "Pinned versions"): a set names the version each type is
 * served with on any change — through the control API, the library and a resource file's
 * reload — and, in delta, the version of each resource. Types not named keep istiod's push
 * version. Bad pins are refused with their path; a pinned version sent again with other
 * content is served and warned of. The same with a real Envoy: test/e2e/pinned-versions.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { makeStaticCluster } from '../../src/resources/cluster.js';
import { makeLabResources } from '../../src/resources/lab.js';
import type { AdsTestStream, ClientResponse } from '../../src/testing/ads-client.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { ack, handshake } from '../support/fixtures/handshake.js';
import { refusal } from '../support/fixtures/control-client.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { it } from '../support/fixtures/test.js';

const PUSH_VERSION = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\/\d+$/;

const labWith = (connectTimeout: string) => [
  ...makeLabResources(),
  makeStaticCluster({ name: 'extra', endpoints: [], connectTimeout }),
];

/** CDS and LDS watched and ACKed, as Envoy would. */
async function watching(stream: AdsTestStream): Promise<void> {
  const { cds, lds } = await handshake(stream);
  expect(cds.version_info).toMatch(PUSH_VERSION);
  ack(stream, lds);
}

/** The next CDS and LDS responses, in either order, each ACKed. */
async function nextPush(stream: AdsTestStream): Promise<Map<string, ClientResponse>> {
  const byType = new Map<string, ClientResponse>();
  while (byType.size < 2) {
    const response = await stream.next();
    ack(stream, response);
    byType.set(response.type_url, response);
  }
  return byType;
}

describe('pinned versions over the control API and the library', () => {
  it.override({ controlVia: 'remote' });
  it('PUT /control/resources with versions: CDS goes out at 2, LDS at the push version', async ({
    mock,
    ads,
    control: remoteControl,
  }) => {
    const stream = ads.sotw();
    await watching(stream);
    const answer = await remoteControl.setResources({
      resources: labWith('1s'),
      versions: { CDS: '2' },
    });
    expect(answer).toMatchObject({ changed: ['CDS'], warnings: [] });
    const pushed = await nextPush(stream);
    expect(pushed.get(CLUSTER_TYPE)?.version_info).toBe('2');
    const lds = pushed.get(LISTENER_TYPE)?.version_info;
    expect(lds).toMatch(PUSH_VERSION);
    expect('version' in answer && answer.version).toBe(lds);
    await mock.waitForAck(CLUSTER_TYPE, { version: '2' });
  });

  it('push() gives unpinned types a new version; pinned ones keep theirs and are not re-sent', async ({
    mock,
    ads,
  }) => {
    const stream = ads.sotw();
    await watching(stream);
    await mock.control.setResources({ resources: labWith('1s'), versions: { CDS: '2' } });
    await nextPush(stream);
    expect((await mock.control.push()).streams).toBe(1);
    const lds = await stream.next();
    expect([lds.type_url, PUSH_VERSION.test(lds.version_info)]).toEqual([LISTENER_TYPE, true]);
    ack(stream, lds);
    await expect(stream.next(300)).rejects.toThrow();
    expect(mock.snapshot().get(CLUSTER_TYPE).version).toBe('2');
  });

  it('the same version with other content is sent again, with a warning', async ({ mock, ads }) => {
    const stream = ads.sotw();
    await watching(stream);
    const versions = { CDS: '2', LDS: '2' };
    await mock.control.setResources({ resources: labWith('1s'), versions });
    await nextPush(stream);
    const again = await mock.control.setResources({ resources: labWith('5s'), versions });
    expect(again.warnings).toEqual([
      {
        path: 'versions.CDS',
        message:
          'version "2" was already served with other CDS resources; sent again with the new ones under the same version',
      },
    ]);
    // Only CDS changed: LDS, at the same version and content, is not sent.
    const cds = await stream.next();
    expect([cds.type_url, cds.version_info]).toEqual([CLUSTER_TYPE, '2']);
    ack(stream, cds);
    await expect(stream.next(300)).rejects.toThrow();
    // The same pins and the same content again: nothing changes, nothing is sent.
    await mock.control.setResources({ resources: labWith('5s'), versions });
    await expect(stream.next(300)).rejects.toThrow();
  });

  it('a change without versions goes back to the push version for every type', async ({
    mock,
    ads,
  }) => {
    const stream = ads.sotw();
    await watching(stream);
    await mock.control.setResources({ resources: labWith('1s'), versions: { CDS: '2', LDS: '2' } });
    await nextPush(stream);
    await mock.control.setResources({ resources: labWith('1s') });
    const pushed = await nextPush(stream);
    const versions = [...pushed.values()].map((r) => r.version_info);
    expect(versions[0]).toMatch(PUSH_VERSION);
    expect(versions[1]).toBe(versions[0]);
  });

  it('delta: resourceVersions is each pinned resource’s version; others stay unversioned', async ({
    mock,
    ads,
  }) => {
    const stream = ads.delta();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    const first = await stream.nextDelta();
    stream.send({ type_url: CLUSTER_TYPE, response_nonce: first.nonce });
    await mock.waitForAck(CLUSTER_TYPE);
    const pins = { versions: { CDS: '3' }, resourceVersions: { CDS: { extra: 'e1' } } };
    await mock.control.setResources({ resources: labWith('1s'), ...pins });
    const pushed = await stream.nextDelta();
    expect(pushed.system_version_info).toBe('3');
    const versions = Object.fromEntries(pushed.resources.map((r) => [r.name, r.version]));
    expect(versions).toEqual({ BlackHoleCluster: '', 'inbound|8101||': '', extra: 'e1' });
    stream.send({ type_url: CLUSTER_TYPE, response_nonce: pushed.nonce });
    await mock.waitForAck(CLUSTER_TYPE, { version: '3' });

    // The same versions, extra's content changed: extra alone is sent again, warned of.
    const again = await mock.control.setResources({ resources: labWith('2s'), ...pins });
    expect(again.warnings?.map((w) => w.path)).toEqual([
      'versions.CDS',
      'resourceVersions.CDS.extra',
    ]);
    const repeat = await stream.nextDelta();
    expect(repeat.system_version_info).toBe('3');
    expect(repeat.resources.map((r) => [r.name, r.version])).toEqual([['extra', 'e1']]);
  });

  it('delta, deltaResourceVersions: a reconnect listing the pinned versions is sent nothing again', async ({
    startMock,
    connect,
  }) => {
    const mock = await startMock({ deltaResourceVersions: true });
    const pins = { resourceVersions: { CDS: { extra: 'e1' } } };
    await mock.control.setResources({ resources: labWith('1s'), ...pins });
    const client = connect(mock);
    const stream = client.delta();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    const first = await stream.nextDelta();
    const have = Object.fromEntries(first.resources.map((r) => [r.name, r.version]));
    expect(have['extra']).toBe('e1');
    stream.close();
    const again = client.delta();
    again.send({ type_url: CLUSTER_TYPE, node: sidecarNode(), initial_resource_versions: have });
    const response = await again.nextDelta();
    expect([response.resources, response.removed_resources]).toEqual([[], []]);
  });

  it('sets: each set names its own versions', async ({ mock, ads, control: remoteControl }) => {
    const stream = ads.sotw();
    await watching(stream);
    await remoteControl.setResources({
      sets: [{ name: 'default', resources: labWith('1s'), versions: { CDS: 'c', LDS: 'l' } }],
    });
    const pushed = await nextPush(stream);
    expect(pushed.get(CLUSTER_TYPE)?.version_info).toBe('c');
    expect(pushed.get(LISTENER_TYPE)?.version_info).toBe('l');
    expect((await mock.control.getResources()).sets[0]?.types['LDS']).toBe('l');
  });
});

describe('bad pins', () => {
  it('are refused with every problem and its path; the last good set keeps serving', async ({
    mock,
    client,
  }) => {
    const before = mock.snapshot().version;
    const refused = await refusal(
      client.call('setResources', {
        resources: labWith('1s'),
        versions: { XDS: '1', LDS: '' },
        resourceVersions: { CDS: { nope: '1', extra: 7 }, EDS: 'x' },
      }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.problems.map((p) => p.path).sort()).toEqual([
      'resourceVersions.CDS.extra',
      'resourceVersions.CDS.nope',
      'resourceVersions.EDS',
      'versions.LDS',
      'versions.XDS',
    ]);
    const byPath = new Map(refused.body.problems.map((p) => [p.path, p.message]));
    expect(byPath.get('resourceVersions.CDS.nope')).toBe(
      'the set has no CDS resource named "nope"',
    );
    expect(byPath.get('versions.LDS')).toBe('expected a non-empty version string');
    expect(byPath.get('versions.XDS')).toMatch(/^unknown resource type \(expected one of CDS/);
    expect(mock.snapshot().version).toBe(before);
  });

  it('top-level versions beside sets are refused: each set names its own', async ({ client }) => {
    const refused = await refusal(
      client.call('setResources', {
        sets: [{ name: 'default', resources: labWith('1s') }],
        versions: { CDS: '1' },
      }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.problems).toEqual([
      {
        path: 'versions',
        message: 'with "sets", each set names its own versions: {"sets": [{…, "versions": {…}}]}',
      },
    ]);
  });
});

describe('pinned versions in a resource file', () => {
  it('are served on every reload, as the file names them', async ({ startMock, connect }) => {
    const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-pins-'));
    try {
      const file = join(dir, 'resources.json');
      const write = (versions: object, timeout: string) =>
        writeFileSync(file, JSON.stringify({ resources: labWith(timeout), versions }));
      write({ CDS: 'file-1' }, '1s');
      const mock = await startMock({ resourcesPath: file, watchResources: false });
      const stream = connect(mock).sotw();
      const { cds, lds } = await handshake(stream);
      expect(cds.version_info).toBe('file-1');
      ack(stream, lds);
      write({ CDS: 'file-2', LDS: 'file-2' }, '1s');
      await mock.control.reloadResources();
      const pushed = await nextPush(stream);
      expect([...pushed.values()].map((r) => r.version_info)).toEqual(['file-2', 'file-2']);
      // The same pins with other content: served, and the warning is in the status.
      write({ CDS: 'file-2', LDS: 'file-2' }, '9s');
      await mock.control.reloadResources();
      const cdsAgain = await stream.next();
      expect([cdsAgain.type_url, cdsAgain.version_info]).toEqual([CLUSTER_TYPE, 'file-2']);
      expect((await mock.control.resourceStatus()).warnings.map((w) => w.path)).toEqual([
        'versions.CDS',
      ]);
      // A bad pin fails the reload, with the file named; the last good set keeps serving.
      write({ CDS: 3 }, '9s');
      const bad = await refusal(mock.control.reloadResources());
      expect(bad.problems.map((p) => p.message)).toEqual(['expected a non-empty version string']);
      expect(mock.snapshot().get(CLUSTER_TYPE).version).toBe('file-2');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
