/**
 * From Kubernetes YAML to an RPC: `generate` asks istiod's own gRPC generator (istiod-ref)
 * for a pod of Istio's `grpc-agent` template, the mock serves the answer, and gRPC's own xDS
 * client (`@grpc/grpc-js-xds`), bootstrapped with `grpcBootstrap`, resolves
 * `xds:///echo.default.svc.cluster.local:7070` through it to a real gRPC server here.
 */
import * as grpc from '@grpc/grpc-js';
import * as grpcXds from '@grpc/grpc-js-xds';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { grpcBootstrap } from '../../src/testing/envoy.js';
import { startMockIstiod, type TestMockIstiod } from '../../src/testing/start.js';
import { CLUSTER_TYPE, ENDPOINT_TYPE, LISTENER_TYPE, ROUTE_TYPE } from '../../src/xds/type-urls.js';
import { useCli } from '../support/fixtures/cli.js';

grpcXds.register();
const cli = useCli();

const HOST = 'echo.default.svc.cluster.local';
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

/** The Service, its pod (grpc-agent) and the pod's endpoint, as a cluster would hold them. */
const YAML = `apiVersion: v1
kind: Service
metadata: {name: echo, namespace: default}
spec:
  selector: {app: echo}
  ports: [{name: grpc, port: 7070, targetPort: 7070}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: echo, namespace: default}
spec:
  selector: {matchLabels: {app: echo}}
  template:
    metadata:
      labels: {app: echo}
      annotations: {inject.istio.io/templates: grpc-agent}
    spec:
      containers: [{name: echo, image: echo, ports: [{containerPort: 7070}]}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: echo-1
  namespace: default
  labels: {kubernetes.io/service-name: echo}
addressType: IPv4
ports: [{name: grpc, port: 7070, protocol: TCP}]
endpoints:
  - addresses: [10.1.0.7]
    conditions: {ready: true}
    targetRef: {kind: Pod, name: echo-0, namespace: default}
`;

let mock: TestMockIstiod | undefined;
let server: grpc.Server | undefined;
let client: grpc.Client | undefined;
let dir: string | undefined;
afterEach(async () => {
  client?.close();
  server?.forceShutdown();
  await mock?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function startEcho(): Promise<number> {
  server = new grpc.Server();
  server.addService(ECHO, {
    Echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) =>
      done(null, Buffer.concat([Buffer.from('echo:'), call.request])),
  });
  return new Promise((resolve, reject) =>
    server!.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    ),
  );
}

it("serves istiod's gRPC generator's answer for a grpc-agent pod; grpc-js-xds completes an RPC", async () => {
  const port = await startEcho();
  dir = mkdtempSync(join(tmpdir(), 'mock-istiod-proxyless-'));
  writeFileSync(join(dir, 'echo.yaml'), YAML);
  const out = join(dir, 'echo.json');
  const generated = await cli.run(
    ['generate', join(dir, 'echo.yaml'), '-o', out, '--upstream', `127.0.0.1:${port}`],
    { timeoutMs: 60_000 },
  );
  expect(generated.stderr).toContain('as a proxyless gRPC application (GENERATOR grpc)');
  expect(generated.code).toBe(0);
  const file = JSON.parse(readFileSync(out, 'utf8')) as { resources: { name?: string }[] };
  const names = file.resources.map((r) => r.name).filter((n) => n !== undefined);
  expect(names).toEqual(
    expect.arrayContaining([
      `${HOST}:7070`,
      'xds.istio.io/grpc/lds/inbound/0.0.0.0:7070',
      'xds.istio.io/grpc/lds/inbound/[::]:7070',
      `outbound|7070||${HOST}`,
    ]),
  );

  mock = await startMockIstiod({ resourcesPath: out });
  const bootstrap = grpcBootstrap(mock, { podName: 'client-0', podIp: '10.1.0.9' });
  client = new grpc.Client(`xds:///${HOST}:7070`, grpc.credentials.createInsecure(), {
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
    await mock.waitForAck(type, { node: bootstrap.node.id });
  }
  // The client named what it dials, as gRPC does; the mock sent it that alone.
  expect(mock.streams()[0]?.types.get(LISTENER_TYPE)?.names).toEqual([`${HOST}:7070`]);
});
