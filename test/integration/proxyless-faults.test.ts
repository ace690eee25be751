/**
 * gRPC's own xDS client (`@grpc/grpc-js-xds`) under the mock's faults, as a proxyless pod
 * meets them: a withheld configuration holds a wait-for-ready RPC until release; an outage
 * leaves RPCs working on the configuration the client has, and the client comes back after
 * `up`. The client is bootstrapped with `grpcBootstrap`, as `bootstrap --grpc` writes it.
 */
import * as grpc from '@grpc/grpc-js';
import * as grpcXds from '@grpc/grpc-js-xds';
import { afterEach, expect, it } from 'vitest';
import { makeLabResources } from '../../src/resources/lab.js';
import { makeProxylessService } from '../../src/resources/proxyless.js';
import { grpcBootstrap } from '../../src/testing/envoy.js';
import { startMockIstiod, type TestMockIstiod } from '../../src/testing/start.js';
import { waitFor } from '../../src/util/wait.js';
import { LISTENER_TYPE } from '../../src/xds/type-urls.js';

grpcXds.register();

const HOST = 'echo.default.svc.cluster.local';
const ECHO = {
  path: '/mock.test.Echo/Echo',
  requestStream: false,
  responseStream: false,
  requestSerialize: (b: Buffer) => b,
  requestDeserialize: (b: Buffer) => b,
  responseSerialize: (b: Buffer) => b,
  responseDeserialize: (b: Buffer) => b,
} as const;

let mock: TestMockIstiod | undefined;
let server: grpc.Server | undefined;
let client: grpc.Client | undefined;
afterEach(async () => {
  client?.close();
  server?.forceShutdown();
  await mock?.close();
});

async function startEcho(): Promise<number> {
  server = new grpc.Server();
  server.addService({ Echo: ECHO } satisfies grpc.ServiceDefinition, {
    Echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) =>
      done(null, Buffer.concat([Buffer.from('echo:'), call.request])),
  });
  return new Promise((resolve, reject) =>
    server!.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    ),
  );
}

/** The mock serving the echo service to proxyless clients, and a client dialing it. */
async function setUp(options: { withholdFirst?: boolean } = {}) {
  const port = await startEcho();
  mock = await startMockIstiod({
    withholdFirst: options.withholdFirst ?? false,
    resources: [
      ...makeLabResources(),
      ...makeProxylessService({
        host: HOST,
        port: 7070,
        endpoints: [{ address: '127.0.0.1', port }],
      }),
    ],
  });
  const bootstrap = grpcBootstrap(mock, { podName: 'client-0', podIp: '10.0.0.9' });
  client = new grpc.Client(`xds:///${HOST}:7070`, grpc.credentials.createInsecure(), {
    'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap),
  });
  return { node: bootstrap.node.id };
}

/** One RPC; wait-for-ready holds it while the channel has no configuration. */
function echo(text: string, waitForReady = false): Promise<string> {
  return new Promise((resolve, reject) =>
    client!.makeUnaryRequest(
      ECHO.path,
      ECHO.requestSerialize,
      ECHO.responseDeserialize,
      Buffer.from(text),
      new grpc.Metadata({ waitForReady }),
      { deadline: Date.now() + 15_000 },
      (err, res) => (err ? reject(err) : resolve((res as Buffer).toString())),
    ),
  );
}

it('withheld: a wait-for-ready RPC waits with no answer to its LDS, and completes on release', async () => {
  const { node } = await setUp({ withholdFirst: true });
  let settled = false;
  const rpc = echo('held', true).finally(() => {
    settled = true;
  });
  await mock!.waitForRequest('LDS', { node });
  await mock!.expectNoResponse('LDS', 300, { node });
  expect(settled).toBe(false);
  await mock!.control.release();
  expect(await rpc).toBe('echo:held');
  expect(mock!.streams()[0]?.types.get(LISTENER_TYPE)?.names).toEqual([`${HOST}:7070`]);
});

it('down: RPCs keep working on the configuration the client has; it reconnects after up', async () => {
  const { node } = await setUp();
  expect(await echo('before')).toBe('echo:before');
  await mock!.waitForAck(LISTENER_TYPE, { node });
  await mock!.control.down();
  expect(mock!.streams()).toHaveLength(0);
  expect(await echo('during')).toBe('echo:during');
  const reconnects = mock!.journal.query({ kind: 'reconnect' }).length;
  await mock!.control.up();
  await waitFor(() => mock!.journal.query({ kind: 'reconnect', node }).length > reconnects, {
    description: 'the client to reconnect after up',
    timeoutMs: 20_000,
  });
  expect(await echo('after')).toBe('echo:after');
});
