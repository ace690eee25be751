/**
 * `serve --relay`: a mock in front of another control plane (here a second mock, standing in
 * for istiod), each downstream stream relayed on a stream of its own. What the proxy gets is
 * the upstream's response as it was sent, versions and nonces included; faults act on it; and
 * the upstream never sees an ACK or NACK of a response the relay made.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { firstStates, readRecording, replaySets } from '../../src/app/replay.js';
import { reenact } from '../../src/app/reenact.js';
import pino from 'pino';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { startMockIstiod, type TestMockIstiod } from '../../src/testing/start.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { waitFor } from '../../src/util/wait.js';
import type { SyncStatusJson } from '../../src/debug/client-config.js';
import { useCli } from '../support/fixtures/cli.js';
import { bearer, caClient, createCertificate, makeCsr } from '../support/fixtures/ca.js';
import * as grpc from '@grpc/grpc-js';
import { X509Certificate } from 'node:crypto';

const cli = useCli();
const escape = (text: string | undefined) => (text ?? '').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const NODE = { id: 'sidecar~10.0.0.1~app-0.default~default.svc.cluster.local' };

let upstream: TestMockIstiod | undefined;
let relay: TestMockIstiod | undefined;
let client: AdsTestClient | undefined;
afterEach(async () => {
  client?.close();
  await relay?.close();
  await upstream?.close();
  [client, relay, upstream] = [undefined, undefined, undefined];
});

async function start() {
  upstream = await startMockIstiod({ resources: makeLabResources() });
  relay = await startMockIstiod({ relay: upstream.xdsAddress });
  client = new AdsTestClient(relay.xdsAddress);
  return { upstream, relay, stream: client.sotw() };
}

describe('the relay', () => {
  it("passes the upstream's responses through, its versions and nonces included", async () => {
    const { upstream, relay, stream } = await start();
    stream.send({ node: NODE, type_url: CLUSTER_TYPE });
    const response = await stream.next();
    const [up] = upstream.streams();
    const sent = up?.types.get(CLUSTER_TYPE)?.sent;
    expect(response.nonce).toBe(sent?.nonce);
    expect(response.version_info).toBe(sent?.version);
    expect(response.resources.length).toBe(upstream.snapshot().get(CLUSTER_TYPE).resources.size);
    stream.send({
      type_url: CLUSTER_TYPE,
      version_info: response.version_info,
      response_nonce: response.nonce,
    });
    // The ACK reaches the upstream, and the relay's own books show it too.
    await upstream.waitForAck(CLUSTER_TYPE, { node: NODE.id });
    await relay.waitForAck(CLUSTER_TYPE, { node: NODE.id });
    // The relay's state shows the stream's istiod, and what it sent.
    const [shown] = (await relay.control.state()).streams;
    expect(shown?.upstream).toEqual({
      address: upstream.xdsAddress,
      connected: true,
      received: { [CLUSTER_TYPE]: response.version_info },
    });
  });

  it('withholds the upstream response until release, then sends the latest', async () => {
    const { relay, stream } = await start();
    await relay.control.withhold();
    stream.send({ node: NODE, type_url: LISTENER_TYPE });
    await expect(stream.next(500)).rejects.toMatchObject({ code: 'WAIT_TIMEOUT' });
    await relay.control.release();
    const response = await stream.next();
    expect(response.type_url).toBe(LISTENER_TYPE);
  });

  it("shows a withheld proxy behind its istiod: syncz, proxy-status's lines and the metrics", async () => {
    const { upstream, relay, stream } = await start();
    stream.send({ node: NODE, type_url: CLUSTER_TYPE });
    const first = await stream.next();
    stream.send({
      type_url: CLUSTER_TYPE,
      version_info: first.version_info,
      response_nonce: first.nonce,
    });
    await relay.waitForAck(CLUSTER_TYPE, { node: NODE.id });
    await relay.control.withhold();
    await upstream.control.push({});
    const newer = () => upstream.streams()[0]?.types.get(CLUSTER_TYPE)?.sent?.version;
    await waitFor(() => relay.streams()[0]?.upstream?.received.get(CLUSTER_TYPE) === newer(), {
      description: "istiod's push to reach the relay",
    });
    const control = `http://127.0.0.1:${relay.addresses.control?.port}`;
    const [status] = (await (await fetch(`${control}/debug/syncz`)).json()) as SyncStatusJson[];
    expect(status?.upstream).toEqual({
      address: upstream.xdsAddress,
      connected: true,
      types: { [CLUSTER_TYPE]: { received: newer(), delivered: first.version_info } },
    });
    const run = await cli.run([
      'proxy-status',
      '--control-port',
      String(relay.addresses.control?.port),
    ]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    const at = lines.indexOf(`app-0.default relayed from istiod ${upstream.xdsAddress}: connected`);
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(
      new RegExp(
        `^  CDS +istiod sent ${escape(newer())} +ACKed ${escape(first.version_info)} +behind$`,
      ),
    );
    const metrics = await (await fetch(`${control}/metrics`)).text();
    expect(metrics).toContain('mock_istiod_relay_streams{upstream="connected"} 1');
    expect(metrics).toContain('mock_istiod_relay_behind{type="CDS"} 1');
  });

  it("replaces a response with one the proxy rejects; the NACK of the relay's nonce stays with the relay", async () => {
    const { upstream, relay, stream } = await start();
    stream.send({ node: NODE, type_url: LISTENER_TYPE });
    const good = await stream.next();
    stream.send({
      type_url: LISTENER_TYPE,
      version_info: good.version_info,
      response_nonce: good.nonce,
    });
    await upstream.waitForAck(LISTENER_TYPE, { node: NODE.id });
    await relay.control.inject({ scenario: 'nack', params: { config: 'unknown-cluster' } });
    // The replacement goes out on the next upstream response: a push upstream.
    await upstream.control.push({});
    const bad = await stream.next();
    expect(bad.version_info).toContain('nack.unknown-cluster');
    const upstreamNonce = upstream.streams()[0]?.types.get(LISTENER_TYPE)?.sent?.nonce;
    expect(bad.nonce).not.toBe(upstreamNonce);
    stream.send({
      type_url: LISTENER_TYPE,
      version_info: good.version_info,
      response_nonce: bad.nonce,
      error_detail: { code: 3, message: "route: unknown cluster 'no-such-cluster'" },
    });
    await waitFor(() => relay.streams()[0]?.types.get(LISTENER_TYPE)?.nack !== undefined, {
      description: 'the relay to record the NACK',
    });
    // istiod never sent that nonce: it sees no NACK. A request sent after it reaches the
    // upstream on the same stream, so once that is there the NACK would have been too.
    stream.send({ type_url: CLUSTER_TYPE });
    await waitFor(() => upstream.streams()[0]?.types.has(CLUSTER_TYPE), {
      description: 'the next request to reach the upstream',
    });
    expect(upstream.streams()[0]?.types.get(LISTENER_TYPE)?.nack).toBeUndefined();
    // The journal marks each response: istiod's, or the mock's in its place.
    const responses = relay.journal.query({ kind: 'response', typeUrl: LISTENER_TYPE });
    expect(responses.map((e) => [e.nonce === bad.nonce, e.relayed]).slice(0, 2)).toEqual([
      [false, 'istiod'],
      [true, 'mock'],
    ]);
  });

  it('ends the downstream stream when the upstream ends it', async () => {
    const { upstream, stream } = await start();
    stream.send({ node: NODE, type_url: CLUSTER_TYPE });
    await stream.next();
    await upstream.control.disconnect({});
    await expect(stream.next(5_000)).rejects.toThrow(/stream ended/);
  });
});

describe('the relay, delta', () => {
  it("passes istiod's delta responses through in order, each as sent, and queues them while withheld", async () => {
    upstream = await startMockIstiod({ resources: makeLabResources(), versioning: 'per-type' });
    relay = await startMockIstiod({ relay: upstream.xdsAddress });
    client = new AdsTestClient(relay.xdsAddress);
    const stream = client.delta();
    stream.send({ node: NODE, type_url: CLUSTER_TYPE });
    const first = await stream.nextDelta();
    const [up] = upstream.streams();
    expect(first.nonce).toBe(up?.types.get(CLUSTER_TYPE)?.sent?.nonce);
    expect(first.resources.length).toBeGreaterThan(0);
    stream.send({ type_url: CLUSTER_TYPE, response_nonce: first.nonce });
    await upstream.waitForAck(CLUSTER_TYPE, { node: NODE.id });
    // Two changes upstream while the relay withholds: both come down, in order, on release.
    await relay.control.withhold();
    const lab = makeLabResources();
    const extra = (name: string) => ({
      '@type': CLUSTER_TYPE,
      name,
      type: 'STATIC',
      connect_timeout: '1s',
    });
    const pushed = upstream;
    const sentCount = () => pushed.streams()[0]?.types.get(CLUSTER_TYPE)?.sent?.count;
    await pushed.control.setResources({ resources: [...lab, extra('a')] });
    await waitFor(() => sentCount() === 1, { description: 'the upstream to send cluster a' });
    await pushed.control.setResources({ resources: [...lab, extra('a'), extra('b')] });
    await expect(stream.nextDelta(300)).rejects.toMatchObject({ code: 'WAIT_TIMEOUT' });
    await relay.control.release();
    const [one, two] = [await stream.nextDelta(), await stream.nextDelta()];
    expect(one.resources.map((r) => r.name)).toEqual(['a']);
    expect(two.resources.map((r) => r.name)).toEqual(['b']);
  });
});

describe('an upstream outage', () => {
  it('hold: the proxy stream stays open, and the relay asks the returning istiod again', async () => {
    upstream = await startMockIstiod({ resources: makeLabResources() });
    const { host, port } = upstream.addresses.xds;
    relay = await startMockIstiod({ relay: upstream.xdsAddress, relayOutage: 'hold' });
    client = new AdsTestClient(relay.xdsAddress);
    const stream = client.sotw();
    stream.send({ node: NODE, type_url: CLUSTER_TYPE });
    const first = await stream.next();
    stream.send({
      type_url: CLUSTER_TYPE,
      version_info: first.version_info,
      response_nonce: first.nonce,
    });
    await upstream.waitForAck(CLUSTER_TYPE, { node: NODE.id });
    await upstream.close();
    // istiod is gone: the proxy's stream is not ended, and nothing comes; the state says so.
    await expect(stream.next(1_000)).rejects.toMatchObject({ code: 'WAIT_TIMEOUT' });
    const held = relay;
    const connected = async () => (await held.control.state()).streams[0]?.upstream?.connected;
    await waitFor(async () => (await connected()) === false, {
      description: 'the relay to show its upstream lost',
    });
    upstream = await startMockIstiod({ resources: makeLabResources(), xds: { host, port } });
    const again = await stream.next(10_000);
    expect(again.type_url).toBe(CLUSTER_TYPE);
    // istiod's own response, as the first request of the new upstream stream asked for it.
    expect(again.nonce).toBe(upstream.streams()[0]?.types.get(CLUSTER_TYPE)?.sent?.nonce);
    await expect(stream.next(500)).rejects.toMatchObject({ code: 'WAIT_TIMEOUT' });
    expect(await connected()).toBe(true);
    // The journal tells the outage apart: lost, with istiod's reason, then back.
    const outage = relay.journal.query({ kind: ['upstream-lost', 'upstream-back'] });
    expect(outage.map((e) => e.kind)).toEqual(['upstream-lost', 'upstream-back']);
    expect(outage[0]?.reason).toMatch(/.+/);
  });
});

describe('the relay over TLS', () => {
  it("reaches an istiod on its TLS port with its root and a pod's token, as pilot-agent does", async () => {
    upstream = await startMockIstiod({ resources: makeLabResources(), tls: true });
    const { token } = upstream.security.createToken({
      namespace: 'default',
      serviceAccount: 'default',
    });
    relay = await startMockIstiod({
      relay: upstream.xdsAddress,
      relayTls: { rootCert: upstream.security.rootCert, token },
    });
    client = new AdsTestClient(relay.xdsAddress);
    const stream = client.sotw();
    stream.send({ node: NODE, type_url: CLUSTER_TYPE });
    const response = await stream.next();
    expect(response.nonce).toBe(upstream.streams()[0]?.types.get(CLUSTER_TYPE)?.sent?.nonce);
  });

  it("without a token of its own, the relay presents the proxy's: istiod serves the pod as itself", async () => {
    upstream = await startMockIstiod({ resources: makeLabResources(), tls: true });
    const { token } = upstream.security.createToken({
      namespace: 'default',
      serviceAccount: 'default',
    });
    relay = await startMockIstiod({
      relay: upstream.xdsAddress,
      relayTls: { rootCert: upstream.security.rootCert },
    });
    client = new AdsTestClient(relay.xdsAddress);
    const stream = client.sotw(bearer(token));
    stream.send({ node: NODE, type_url: CLUSTER_TYPE });
    const response = await stream.next();
    expect(response.nonce).toBe(upstream.streams()[0]?.types.get(CLUSTER_TYPE)?.sent?.nonce);
  });

  it("without the token, istiod's refusal is what the proxy gets", async () => {
    upstream = await startMockIstiod({ resources: makeLabResources(), tls: true });
    relay = await startMockIstiod({
      relay: upstream.xdsAddress,
      relayTls: { rootCert: upstream.security.rootCert },
    });
    client = new AdsTestClient(relay.xdsAddress);
    const stream = client.sotw();
    stream.send({ node: NODE, type_url: CLUSTER_TYPE });
    await expect(stream.next()).rejects.toThrow(/stream ended: 16 authentication failure/);
  });
});

describe('the CA relayed to istiod (relayCa)', () => {
  it("istiod's CA signs with the pod's own token; a token istiod did not issue is istiod's to refuse", async () => {
    upstream = await startMockIstiod({ tls: true });
    relay = await startMockIstiod({
      tls: true,
      relay: upstream.xdsAddress,
      relayTls: { rootCert: upstream.security.rootCert },
      relayCa: true,
    });
    const identity = { namespace: 'default', serviceAccount: 'orders' };
    const ca = caClient(relay.xdsAddress, relay.security.rootCert);
    try {
      const signed = await createCertificate(
        ca,
        { csr: await makeCsr() },
        upstream.security.createToken(identity).token,
      );
      if (!signed.ok) throw new Error(`refused: ${signed.details}`);
      const root = new X509Certificate(signed.chain.at(-1) ?? '');
      expect(root.fingerprint256).toBe(
        new X509Certificate(upstream.security.rootCert).fingerprint256,
      );
      expect(new X509Certificate(signed.chain[0] ?? '').subjectAltName).toBe(
        'URI:spiffe://cluster.local/ns/default/sa/orders',
      );
      const refused = await createCertificate(
        ca,
        { csr: await makeCsr() },
        relay.security.createToken(identity).token,
      );
      expect(refused).toMatchObject({ ok: false, code: grpc.status.UNAUTHENTICATED });
    } finally {
      ca.close();
    }
  });

  it('is refused without a relay', async () => {
    await expect(startMockIstiod({ relayCa: true })).rejects.toThrow(
      "relayCa: relays the CA to the relay's istiod: needs relay",
    );
  });
});

/** One CDS response istiod sent through a recording relay; everything is closed after. */
async function recordOneResponse(file: string) {
  upstream = await startMockIstiod({ resources: makeLabResources() });
  relay = await startMockIstiod({ relay: upstream.xdsAddress, relayRecord: file });
  client = new AdsTestClient(relay.xdsAddress);
  const stream = client.sotw();
  stream.send({ node: NODE, type_url: CLUSTER_TYPE });
  const recorded = await stream.next();
  client.close();
  await relay.close();
  await upstream.close();
  return recorded;
}

describe('record, then replay', () => {
  it('records what istiod sent each proxy; the replay serves it at the versions istiod sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-record-'));
    try {
      const file = join(dir, 'recording.jsonl');
      const recorded = await recordOneResponse(file);
      const lines = readFileSync(file, 'utf8').trim().split('\n');
      expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({
        node: NODE.id,
        protocol: 'sotw',
        typeUrl: CLUSTER_TYPE,
        version: recorded.version_info,
        nonce: recorded.nonce,
      });
      // No istiod now: the recording alone.
      relay = await startMockIstiod({ resources: replaySets(file) });
      client = new AdsTestClient(relay.xdsAddress);
      const replayed = client.sotw();
      replayed.send({ node: NODE, type_url: CLUSTER_TYPE });
      const response = await replayed.next();
      expect(response.version_info).toBe(recorded.version_info);
      expect(response.resources.map((r) => r.value.toString('base64')).sort()).toEqual(
        recorded.resources.map((r) => r.value.toString('base64')).sort(),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('re-enacts a recording on its timeline: the first state at once, the next push at its recorded time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-record-'));
    try {
      const file = join(dir, 'recording.jsonl');
      const first = await recordOneResponse(file);
      // A second push, 800 ms after the first, that changes a cluster.
      const [line] = readFileSync(file, 'utf8').trim().split('\n');
      const recorded = JSON.parse(line ?? '{}') as {
        at: string;
        version: string;
        resources: { connect_timeout?: string }[];
      };
      const later = {
        ...recorded,
        at: new Date(Date.parse(recorded.at) + 800).toISOString(),
        version: 'pushed-later',
        resources: recorded.resources.map((r, i) =>
          i === 0 ? { ...r, connect_timeout: '7s' } : r,
        ),
      };
      writeFileSync(file, `${line}\n${JSON.stringify(later)}\n`);

      const nodes = readRecording(file);
      expect(nodes.map((n) => n.steps.map((s) => s.atMs))).toEqual([[0, 800]]);
      relay = await startMockIstiod({ resources: firstStates(nodes) });
      const replay = reenact(relay, nodes, pino({ level: 'silent' }));
      try {
        client = new AdsTestClient(relay.xdsAddress);
        const stream = client.sotw();
        const connected = Date.now();
        stream.send({ node: NODE, type_url: CLUSTER_TYPE });
        const atOnce = await stream.next();
        expect(atOnce.version_info).toBe(first.version_info);
        stream.send({
          type_url: CLUSTER_TYPE,
          version_info: atOnce.version_info,
          response_nonce: atOnce.nonce,
        });
        const next = await stream.next(5_000);
        expect(next.version_info).toBe('pushed-later');
        expect(Date.now() - connected).toBeGreaterThanOrEqual(700);
      } finally {
        replay.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
