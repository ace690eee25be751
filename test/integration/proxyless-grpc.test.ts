/**
 * An independent, real xDS client: gRPC's own (`@grpc/grpc-js-xds`) resolves
 * `xds:///<host>:<port>` through LDS (api_listener) → RDS → CDS (EDS) → EDS served by the
 * mock, and completes an RPC against a real gRPC server — proxyless gRPC, as istiod serves it.
 */
import * as grpc from '@grpc/grpc-js';
import * as grpcXds from '@grpc/grpc-js-xds';
import { afterEach, expect, it } from 'vitest';
import { makeProxylessService } from '../../src/resources/proxyless.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { grpcBootstrap } from '../../src/testing/envoy.js';
import { startMockIstiod, type TestMockIstiod } from '../../src/testing/start.js';
import { CLUSTER_TYPE, ENDPOINT_TYPE, LISTENER_TYPE, ROUTE_TYPE } from '../../src/xds/type-urls.js';

grpcXds.register();

const ECHO = {
  Echo: {
    path: '/mock.test.Echo/Echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: (b: Buffer) => b,
    requestDeserialize: (b: Buffer) => b,
    responseSerialize: (b: Buffer) => b,
    responseDeserialize: (b: Buffer) => b,
  },
} satisfies grpc.ServiceDefinition;

let server: TestMockIstiod | undefined;
let echo: grpc.Server | undefined;
let client: grpc.Client | undefined;
afterEach(async () => {
  client?.close();
  echo?.forceShutdown();
  await server?.close();
});

async function startEcho(): Promise<number> {
  echo = new grpc.Server();
  echo.addService(ECHO, {
    Echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) =>
      done(null, Buffer.concat([Buffer.from('echo:'), call.request])),
  });
  return new Promise((resolve, reject) =>
    echo!.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    ),
  );
}

it('resolves xds:/// through the mock and completes an RPC', async () => {
  const port = await startEcho();
  const host = 'orders.default.svc.cluster.local';
  server = await startMockIstiod({
    resources: [
      ...makeLabResources(),
      ...makeProxylessService({ host, port: 8080, endpoints: [{ address: '127.0.0.1', port }] }),
    ],
  });
  const bootstrap = grpcBootstrap(server, {
    podName: 'grpc-client-0',
    podIp: '10.0.0.7',
    workloadName: 'grpc-client',
  });

  client = new grpc.Client(`xds:///${host}:8080`, grpc.credentials.createInsecure(), {
    'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap),
  });
  const { path, requestSerialize, responseDeserialize } = ECHO.Echo;
  const reply = await new Promise<Buffer>((resolve, reject) =>
    client!.makeUnaryRequest(
      path,
      requestSerialize,
      responseDeserialize,
      Buffer.from('hello'),
      { deadline: Date.now() + 15_000 },
      (err, res) => (err ? reject(err) : resolve(res as Buffer)),
    ),
  );
  expect(reply.toString()).toBe('echo:hello');
  for (const type of [LISTENER_TYPE, ROUTE_TYPE, CLUSTER_TYPE, ENDPOINT_TYPE]) {
    await server.waitForAck(type, { node: bootstrap.node.id });
  }
  const listener = server.streams()[0]?.types.get(LISTENER_TYPE);
  expect(listener?.names).toEqual([`${host}:8080`]);
});
