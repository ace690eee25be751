/**
 * The `xds-spec` profile (`profile: 'xds-spec'`, `serve --profile xds-spec`): each rule of the
 * xDS protocol document where istiod departs from it, as one exchange run against istiod's
 * own server (istiod-ref: the default profile's oracle, which the conformance suite shows the
 * mock agrees with) and against the mock in the profile. Each test names the paragraph of
 * the protocol document (docs/root/api-docs/xds_protocol.rst in Envoy) it follows, and
 * asserts both sides: what istiod does, and what the document says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_TYPE, ENDPOINT_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { Exchange, type ServerUnderTest } from './support/exchange.js';
import { casePod, startServers, type Pod, type Servers } from './support/servers.js';
import { ABSENT_CLUSTER, ORDERS_CLUSTER } from './cases/delta-subscriptions.js';

const pods = Array.from({ length: 14 }, (_, i) => casePod(i + 1));
let servers: Servers;
let next = 0;

beforeAll(async () => {
  servers = await startServers(pods, { profile: 'xds-spec' });
}, 90_000);
afterAll(async () => {
  await servers?.close();
});

type Script = (x: Exchange) => Promise<void>;

async function run(script: Script, server: ServerUnderTest, pod: Pod): Promise<string[]> {
  const x = new Exchange(server, pod.name, pod.ip);
  try {
    await script(x);
  } finally {
    x.close();
  }
  return x.transcript.lines;
}

/** The script's transcript from istiod and from the mock in the profile, each on its own pod. */
async function both(script: Script): Promise<{ istiod: string[]; spec: string[] }> {
  const pod = pods[next++ % pods.length] as Pod;
  const [istiod, spec] = await Promise.all([
    run(script, servers.istiod, pod),
    run(script, servers.mock, pod),
  ]);
  return { istiod, spec };
}

/** The responses of a transcript (its `←` lines), without requests. */
const responses = (lines: readonly string[]) => lines.filter((l) => l.startsWith('← '));

/** The resource names a response line lists. */
function resourcesOf(line: string | undefined): string[] {
  const listed = /resources \[([^\]]*)\]/.exec(line ?? '')?.[1] ?? '';
  return listed === '' ? [] : listed.split(', ');
}

/** The names a delta response line removes. */
function removedOf(line: string | undefined): string[] {
  const listed = /removed \[([^\]]*)\]/.exec(line ?? '')?.[1] ?? '';
  return listed === '' ? [] : listed.split(', ');
}

const NOWHERE = 'outbound|1||nowhere.default.svc.cluster.local';

describe('SotW', () => {
  it('CDS asked by name is sent only that cluster ("How the client specifies what resources to return"; "Client Behavior")', async () => {
    const { istiod, spec } = await both(async (x) => {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE, resource_names: [ORDERS_CLUSTER] });
      await s.read();
    });
    expect(resourcesOf(responses(istiod)[0]).length).toBeGreaterThan(1);
    expect(resourcesOf(responses(istiod)[0])).toContain(ORDERS_CLUSTER);
    expect(resourcesOf(responses(spec)[0])).toEqual([ORDERS_CLUSTER]);
  });

  it('LDS asked by name is sent only that listener, none when it does not exist (same paragraphs)', async () => {
    const { istiod, spec } = await both(async (x) => {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: LISTENER_TYPE, resource_names: ['virtualOutbound'] });
      const r = await s.read();
      s.send({
        type_url: LISTENER_TYPE,
        resource_names: ['nowhere'],
        response_nonce: r.nonce,
        version_info: r.version,
      });
      await s.silent();
    });
    expect(resourcesOf(responses(istiod)[0])).toContain('virtualInbound');
    expect(resourcesOf(responses(spec)[0])).toEqual(['virtualOutbound']);
    // Asking for another name is answered with what exists of it: nothing.
    expect(responses(spec)[1]).toMatch(/^← LDS .* resources \[\] /);
  });

  it('an empty list after names unsubscribes, and is not answered ("How the client specifies…": "clearing the list … is interpreted as an unsubscription")', async () => {
    const { istiod, spec } = await both(async (x) => {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE, resource_names: [ORDERS_CLUSTER] });
      const r = await s.read();
      s.send({
        type_url: CLUSTER_TYPE,
        resource_names: [],
        response_nonce: r.nonce,
        version_info: r.version,
      });
      await s.silent();
    });
    // istiod reads an empty CDS list as its wildcard and sends every cluster again.
    expect(resourcesOf(responses(istiod)[1]).length).toBeGreaterThan(1);
    expect(responses(spec)[1]).toBe('← (silent)');
  });

  it('a first EDS request with no names is the legacy wildcard: every endpoint set ("For historical reasons…")', async () => {
    const { istiod, spec } = await both(async (x) => {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: ENDPOINT_TYPE });
      await s.silent();
    });
    expect(responses(istiod)[0]).toBe('← (silent)');
    expect(resourcesOf(responses(spec)[0])).toContain(ORDERS_CLUSTER);
  });

  it('an EDS name with no resource is left out, not sent empty ("Knowing When a Requested Resource Does Not Exist": SotW has no way to say it)', async () => {
    const { istiod, spec } = await both(async (x) => {
      const s = x.sotw();
      s.send({
        node: x.node(),
        type_url: ENDPOINT_TYPE,
        resource_names: [ORDERS_CLUSTER, ABSENT_CLUSTER],
      });
      await s.read();
    });
    expect(resourcesOf(responses(istiod)[0])).toEqual([ORDERS_CLUSTER, ABSENT_CLUSTER].sort());
    expect(resourcesOf(responses(spec)[0])).toEqual([ORDERS_CLUSTER]);
  });
});

describe('delta', () => {
  it('CDS subscribed by name is sent that cluster, and a name with no cluster as removed ("Knowing When a Requested Resource Does Not Exist")', async () => {
    const { istiod, spec } = await both(async (x) => {
      const s = x.delta();
      s.send({
        node: x.node(),
        type_url: CLUSTER_TYPE,
        resource_names_subscribe: [ORDERS_CLUSTER, NOWHERE],
      });
      await s.read();
    });
    expect(resourcesOf(responses(istiod)[0]).length).toBeGreaterThan(1);
    expect(resourcesOf(responses(spec)[0])).toEqual([ORDERS_CLUSTER]);
    expect(removedOf(responses(istiod)[0])).toEqual([NOWHERE]);
    expect(removedOf(responses(spec)[0])).toEqual([NOWHERE]);
  });

  it('an EDS name with no resource is in removed_resources, not sent empty (same paragraph; "Deleting Resources")', async () => {
    const { istiod, spec } = await both(async (x) => {
      const s = x.delta();
      s.send({ node: x.node(), type_url: ENDPOINT_TYPE, resource_names_subscribe: [NOWHERE] });
      await s.read();
    });
    expect(resourcesOf(responses(istiod)[0])).toEqual([NOWHERE]);
    expect(removedOf(responses(istiod)[0])).toEqual([]);
    expect(resourcesOf(responses(spec)[0])).toEqual([]);
    expect(removedOf(responses(spec)[0])).toEqual([NOWHERE]);
  });

  it('resources carry their versions ("Incremental xDS": Resource.version); istiod sends none', async () => {
    const { istiod, spec } = await both(async (x) => {
      const s = x.delta();
      s.send({
        node: x.node(),
        type_url: ENDPOINT_TYPE,
        resource_names_subscribe: [ORDERS_CLUSTER],
      });
      await s.read();
    });
    expect(responses(istiod)[0]).toContain(' unversioned ');
    expect(responses(spec)[0]).toContain(' versioned ');
  });

  it('a stale nonce\'s subscription change is taken ("the server must honor changes to the subscription state even if the nonce is stale")', async () => {
    const { istiod, spec } = await both(async (x) => {
      const s = x.delta();
      s.send({ node: x.node(), type_url: ENDPOINT_TYPE, resource_names_subscribe: [NOWHERE] });
      await s.read();
      s.send({
        type_url: ENDPOINT_TYPE,
        resource_names_subscribe: [ORDERS_CLUSTER],
        response_nonce: 'a-nonce-never-sent',
      });
      await s.silent();
    });
    expect(responses(istiod)[1]).toBe('← (silent)');
    expect(resourcesOf(responses(spec)[1])).toEqual([ORDERS_CLUSTER]);
  });

  it('a name subscribed or unsubscribed under a wildcard is answered with its resource ("Subscribing to Resources"; "Unsubscribing from Resources", the exception)', async () => {
    const { istiod, spec } = await both(async (x) => {
      const s = x.delta();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      const first = await s.read();
      s.send({ type_url: CLUSTER_TYPE, response_nonce: first.nonce });
      s.send({ type_url: CLUSTER_TYPE, resource_names_subscribe: [ORDERS_CLUSTER] });
      const added = await s.read();
      s.send({ type_url: CLUSTER_TYPE, response_nonce: added.nonce });
      s.send({ type_url: CLUSTER_TYPE, resource_names_unsubscribe: [ORDERS_CLUSTER] });
      await s.silent();
    });
    // istiod: the name it holds already is not sent again; its unsubscription is answered
    // with every cluster.
    expect(responses(istiod)[1]).toBe('← (silent)');
    expect(resourcesOf(responses(istiod)[2]).length).toBeGreaterThan(1);
    // The document: a name subscribed is sent even when the client should have it
    // ("Subscribing to Resources"), and one unsubscribed under the wildcard is answered alone.
    expect(resourcesOf(responses(spec)[1])).toEqual([ORDERS_CLUSTER]);
    expect(resourcesOf(responses(spec)[2])).toEqual([ORDERS_CLUSTER]);
  });

  it('unsubscribing `*` leaves the wildcard: names subscribed after it are sent alone ("How the client specifies…", incremental example)', async () => {
    const { istiod, spec } = await both(async (x) => {
      const s = x.delta();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE, resource_names_subscribe: ['*'] });
      const first = await s.read();
      s.send({ type_url: CLUSTER_TYPE, response_nonce: first.nonce });
      s.send({
        type_url: CLUSTER_TYPE,
        resource_names_unsubscribe: ['*'],
        resource_names_subscribe: [ORDERS_CLUSTER],
      });
      await s.read();
    });
    // istiod keeps the wildcard it started with, and holds the cluster already.
    expect(responses(istiod)[1]).toBe('← (silent)');
    expect(resourcesOf(responses(spec)[1])).toEqual([ORDERS_CLUSTER]);
  });

  it('a CDS answer is followed by the endpoints of the clusters it carried, and no others ("Resource warming"; "Grouping Resources into Responses")', async () => {
    const { istiod, spec } = await both(async (x) => {
      const s = x.delta();
      s.send({
        node: x.node(),
        type_url: ENDPOINT_TYPE,
        resource_names_subscribe: [ORDERS_CLUSTER, ABSENT_CLUSTER],
      });
      const eds = await s.read();
      s.send({ type_url: ENDPOINT_TYPE, response_nonce: eds.nonce });
      s.send({ type_url: CLUSTER_TYPE, resource_names_subscribe: [ORDERS_CLUSTER] });
      await s.read();
      await s.read();
    });
    // istiod sends every EDS name the stream watches again; the profile those of the
    // clusters it just sent.
    expect(responses(istiod)[2]).toMatch(/^← Δ EDS /);
    expect(resourcesOf(responses(istiod)[2])).toEqual([ORDERS_CLUSTER, ABSENT_CLUSTER].sort());
    expect(responses(spec)[2]).toMatch(/^← Δ EDS /);
    expect(resourcesOf(responses(spec)[2])).toEqual([ORDERS_CLUSTER]);
  });
});

describe('both protocols', () => {
  it('a push that changed nothing keeps the version: versions are per type, and change with their resources ("ACK/NACK and resource type instance version")', async () => {
    const { istiod, spec } = await both(async (x) => {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      const cds = await s.read();
      s.send({ type_url: CLUSTER_TYPE, response_nonce: cds.nonce, version_info: cds.version });
      await s.silent();
      await x.push();
      await s.silent();
    });
    expect(responses(istiod)[2]).toMatch(/^← CDS version V2\(push\) /);
    expect(responses(spec)[2]).toMatch(/^← CDS version V1\(/);
  });
});
