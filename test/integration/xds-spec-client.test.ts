/**
 * A generic xDS client against the mock in the `xds-spec` profile, as go-control-plane's own
 * server tests drive theirs: subscribe, update, unsubscribe and remove, in SotW and in delta,
 * over the real port, with the resources changed through the control API between steps.
 * Each step asserts what the xDS protocol document says the client sees; the same script
 * against the default profile shows where istiod's rules differ.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AdsTestClient, type AdsTestStream } from '../../src/testing/ads-client.js';
import { startMockIstiod, type TestMockIstiod } from '../../src/testing/start.js';
import type { Profile } from '../../src/core/profile.js';
import { CLUSTER_TYPE, ENDPOINT_TYPE } from '../../src/xds/type-urls.js';
import { resourceName } from '../conformance/support/transcript.js';
import { waitFor } from '../../src/util/wait.js';

const NODE = { id: 'sidecar~10.0.0.1~app-0.default~default.svc.cluster.local' };
const QUIET_MS = 500;

const cluster = (name: string, timeout = '1s') => ({
  '@type': CLUSTER_TYPE,
  name,
  type: 'EDS',
  connect_timeout: timeout,
  eds_cluster_config: { eds_config: { ads: {}, resource_api_version: 'V3' } },
});
const endpoints = (name: string) => ({
  '@type': ENDPOINT_TYPE,
  cluster_name: name,
  endpoints: [{ lb_endpoints: [] }],
});

let mock: TestMockIstiod | undefined;
let client: AdsTestClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await mock?.close();
  mock = undefined;
});

async function start(profile: Profile, resources: unknown[]): Promise<AdsTestStream[]> {
  mock = await startMockIstiod({ profile, resources });
  client = new AdsTestClient(mock.xdsAddress);
  return [client.sotw(), client.delta()];
}

async function set(resources: unknown[]): Promise<void> {
  await mock!.control.setResources({ resources });
}

/** Nothing arrives on the stream for a while. */
async function quiet(stream: AdsTestStream): Promise<void> {
  await expect(stream.next(QUIET_MS)).rejects.toMatchObject({ code: 'WAIT_TIMEOUT' });
}

async function sotwNames(stream: AdsTestStream) {
  const r = await stream.next();
  return { ...r, names: r.resources.map((x) => resourceName(x.value)).sort() };
}

describe('SotW', () => {
  it('subscribe, update, subscribe more, unsubscribe, remove: as the protocol document says', async () => {
    const [s] = (await start('xds-spec', [
      cluster('a'),
      cluster('b'),
      cluster('c'),
      endpoints('a'),
    ])) as [AdsTestStream];
    const ack = (r: { nonce: string; version_info: string }, names: string[]) =>
      s.send({
        type_url: CLUSTER_TYPE,
        resource_names: names,
        response_nonce: r.nonce,
        version_info: r.version_info,
      });

    // Subscribe: CDS by name is sent that cluster alone.
    s.send({ node: NODE, type_url: CLUSTER_TYPE, resource_names: ['a'] });
    const first = await sotwNames(s);
    expect(first.names).toEqual(['a']);
    ack(first, ['a']);
    await quiet(s);

    // Update: a change to a cluster is sent at a new CDS version; one to a cluster the
    // client did not ask for is not sent at all.
    await set([cluster('a', '2s'), cluster('b'), cluster('c'), endpoints('a')]);
    const updated = await sotwNames(s);
    expect(updated.names).toEqual(['a']);
    expect(updated.version_info).not.toBe(first.version_info);
    ack(updated, ['a']);
    await set([cluster('a', '2s'), cluster('b', '3s'), cluster('c'), endpoints('a')]);
    await quiet(s);

    // Subscribe more: every name asked is sent (CDS holds the whole state).
    ack(updated, ['a', 'b']);
    const more = await sotwNames(s);
    expect(more.names).toEqual(['a', 'b']);

    // Unsubscribe: dropping a name is not answered.
    ack(more, ['b']);
    await quiet(s);

    // Remove: the next response leaves the removed cluster out, which deletes it.
    await set([cluster('a', '2s'), cluster('c'), endpoints('a')]);
    const removed = await sotwNames(s);
    expect(removed.names).toEqual([]);
    ack(removed, ['b']);

    // An empty list after names unsubscribes from CDS: nothing more is sent.
    ack(removed, []);
    await waitFor(() => mock!.streams()[0]?.types.has(CLUSTER_TYPE) === false, {
      description: 'the mock to take the unsubscription',
    });
    await set([cluster('a', '4s'), cluster('b'), cluster('c'), endpoints('a')]);
    await quiet(s);
  });

  it('the same script in the istiod profile: CDS is sent whole whatever was asked', async () => {
    const [s] = (await start('istiod', [cluster('a'), cluster('b')])) as [AdsTestStream];
    s.send({ node: NODE, type_url: CLUSTER_TYPE, resource_names: ['a'] });
    expect((await sotwNames(s)).names).toEqual(['a', 'b']);
  });
});

describe('delta', () => {
  it('subscribe, update, unsubscribe, remove, and names that do not exist: only what changed is sent', async () => {
    const [, d] = (await start('xds-spec', [
      cluster('a'),
      cluster('b'),
      endpoints('a'),
      endpoints('b'),
    ])) as [AdsTestStream, AdsTestStream];
    const ack = (type: string, nonce: string) => d.send({ type_url: type, response_nonce: nonce });

    // Subscribe: the cluster asked for, with its version.
    d.send({ node: NODE, type_url: CLUSTER_TYPE, resource_names_subscribe: ['a'] });
    const first = await d.nextDelta();
    expect(first.resources.map((r) => r.name)).toEqual(['a']);
    const version = first.resources[0]?.version;
    expect(version).toMatch(/.+/);
    ack(CLUSTER_TYPE, first.nonce);

    // EDS by name, the same way.
    d.send({ type_url: ENDPOINT_TYPE, resource_names_subscribe: ['a', 'b'] });
    const eds = await d.nextDelta();
    expect(eds.resources.map((r) => r.name).sort()).toEqual(['a', 'b']);
    ack(ENDPOINT_TYPE, eds.nonce);
    await quiet(d);

    // Update: only the changed cluster, at a new resource version; then its endpoints alone,
    // for it to finish warming ("Resource warming"), not those of b.
    await set([cluster('a', '2s'), cluster('b'), endpoints('a'), endpoints('b')]);
    const updated = await d.nextDelta();
    expect(updated.type_url).toBe(CLUSTER_TYPE);
    expect(updated.resources.map((r) => r.name)).toEqual(['a']);
    expect(updated.resources[0]?.version).not.toBe(version);
    expect(updated.removed_resources).toEqual([]);
    ack(CLUSTER_TYPE, updated.nonce);
    const warmed = await d.nextDelta();
    expect(warmed.type_url).toBe(ENDPOINT_TYPE);
    expect(warmed.resources.map((r) => r.name)).toEqual(['a']);
    ack(ENDPOINT_TYPE, warmed.nonce);
    await quiet(d);

    // Unsubscribe: not answered; a later change to it is not sent.
    d.send({ type_url: CLUSTER_TYPE, resource_names_unsubscribe: ['a'] });
    await quiet(d);
    await set([cluster('a', '3s'), cluster('b'), endpoints('a'), endpoints('b')]);
    await quiet(d);

    // Remove: an EDS resource that goes is named in removed_resources, as for any type.
    await set([cluster('a', '3s'), cluster('b'), endpoints('a')]);
    const gone = await d.nextDelta();
    expect(gone.type_url).toBe(ENDPOINT_TYPE);
    expect(gone.resources).toEqual([]);
    expect(gone.removed_resources).toEqual(['b']);
    ack(ENDPOINT_TYPE, gone.nonce);

    // A name that does not exist is answered as removed, CDS and EDS alike.
    d.send({ type_url: CLUSTER_TYPE, resource_names_subscribe: ['nowhere'] });
    const missing = await d.nextDelta();
    expect(missing.resources).toEqual([]);
    expect(missing.removed_resources).toEqual(['nowhere']);
    ack(CLUSTER_TYPE, missing.nonce);

    // …and sent when it comes into being.
    await set([cluster('a', '3s'), cluster('b'), cluster('nowhere'), endpoints('a')]);
    const born = await d.nextDelta();
    expect(born.resources.map((r) => r.name)).toEqual(['nowhere']);
  });

  it('the same steps in the istiod profile: CDS whole and unversioned, a missing EDS name sent empty', async () => {
    const [, d] = (await start('istiod', [cluster('a'), cluster('b')])) as [
      AdsTestStream,
      AdsTestStream,
    ];
    d.send({ node: NODE, type_url: CLUSTER_TYPE, resource_names_subscribe: ['a'] });
    const first = await d.nextDelta();
    expect(first.resources.map((r) => r.name).sort()).toEqual(['a', 'b']);
    expect(first.resources.every((r) => r.version === '')).toBe(true);
    d.send({ type_url: ENDPOINT_TYPE, resource_names_subscribe: ['nowhere'] });
    const eds = await d.nextDelta();
    expect(eds.resources.map((r) => r.name)).toEqual(['nowhere']);
    expect(eds.removed_resources).toEqual([]);
  });
});
