/**
 * `mock-istiod bootstrap --grpc` against what the real pilot-agent writes for the same pod
 * (its `GRPC_XDS_BOOTSTRAP` file, which it writes for every pod): field by field, each
 * difference named. The pod's environment is what Istio's `grpc-agent` template sets. And
 * `--certs` writes a workload certificate from the mock's CA as pilot-agent's
 * `OUTPUT_CERTS` holds one.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { waitFor } from '../../src/util/wait.js';
import { useCli } from '../support/fixtures/cli.js';
import { POD_ENV, startRealLab, type RealLab } from '../support/harness/real-agent.js';

const cli = useCli();

/** What the grpc-agent template adds to the pod's environment (its node metadata). */
const GRPC_AGENT_ENV = {
  ISTIO_META_GENERATOR: 'grpc',
  ISTIO_META_CLUSTER_ID: 'Kubernetes',
  ISTIO_META_MESH_ID: 'cluster.local',
  ISTIO_META_DNS_CAPTURE: 'false',
};

/**
 * Metadata pilot-agent adds that the mock's file leaves out: its own settings (the whole
 * ProxyConfig, the SAN it expects of istiod, the Envoy ports and log flags of the sidecar it
 * would run, its socket names), none of which istiod's gRPC generator reads.
 */
const AGENT_ONLY_METADATA = [
  'ENVOY_PROMETHEUS_PORT',
  'ENVOY_SKIP_DEPRECATED_LOGS',
  'ENVOY_STATUS_PORT',
  'METADATA_DISCOVERY',
  'PILOT_SAN',
  'PROXY_CONFIG',
  'WORKLOAD_IDENTITY_SOCKET_FILE',
];

let lab: RealLab | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await lab?.close();
  lab = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface GrpcBootstrapFile {
  xds_servers: { server_uri: string; [key: string]: unknown }[];
  node: { id: string; metadata: Record<string, unknown>; [key: string]: unknown };
  certificate_providers?: {
    default: { plugin_name: string; config: Record<string, string> };
  };
  server_listener_resource_name_template: string;
}

it('writes the file pilot-agent writes for a grpc-agent pod, but for the agent socket', async () => {
  const podEnv = { ...POD_ENV, ...GRPC_AGENT_ENV };
  lab = await startRealLab({ outputCerts: true, podEnv: GRPC_AGENT_ENV });
  const agentFile = join(lab.agent.dir, 'etc/istio/proxy/grpc-bootstrap.json');
  await waitFor(() => existsSync(agentFile), {
    description: "pilot-agent's grpc-bootstrap.json",
    timeoutMs: 20_000,
  });
  const agent = JSON.parse(readFileSync(agentFile, 'utf8')) as GrpcBootstrapFile;

  const certs = mkdtempSync(join(tmpdir(), 'mock-istiod-grpc-certs-'));
  dirs.push(certs);
  const control = `http://127.0.0.1:${lab.istiod.addresses.control?.port}`;
  const result = await cli.run(
    [
      'bootstrap',
      '--grpc',
      '--discovery-address',
      lab.istiod.xdsAddress,
      '--certs',
      certs,
      '--control',
      control,
    ],
    { podEnv },
  );
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const mock = JSON.parse(result.stdout) as GrpcBootstrapFile;

  // The xDS server: the same but for where it is (the agent's socket, or the mock itself).
  expect(agent.xds_servers[0]?.server_uri).toMatch(/^unix:\/\/\/.*\/XDS$/);
  expect(mock.xds_servers).toEqual([
    { ...agent.xds_servers[0], server_uri: lab.istiod.xdsAddress },
  ]);
  // The node: the same id and locality; pilot-agent's JSON also holds a null oneof of Go's
  // Node struct (`UserAgentVersionType`), which gRPC ignores.
  expect(mock.node.id).toBe(agent.node.id);
  expect(mock.node['locality']).toEqual(agent.node['locality']);
  expect(Object.keys(agent.node).filter((k) => !(k in mock.node))).toEqual([
    'UserAgentVersionType',
  ]);
  expect(Object.keys(mock.node).filter((k) => !(k in agent.node))).toEqual([]);
  // The metadata: every key the mock writes has pilot-agent's value, but ISTIO_VERSION (this
  // build of pilot-agent says `unknown`) and INSTANCE_IPS (pilot-agent adds this machine's
  // other addresses after the pod's).
  const { ISTIO_VERSION: version, INSTANCE_IPS: ips, ...metadata } = mock.node.metadata;
  expect(version).toMatch(/^\d+\.\d+\.\d+/);
  expect(String(agent.node.metadata['INSTANCE_IPS']).split(',')[0]).toBe(ips);
  for (const [key, value] of Object.entries(metadata)) {
    expect({ key, value }).toEqual({ key, value: agent.node.metadata[key] });
  }
  expect(metadata['GENERATOR']).toBe('grpc');
  const agentOnly = Object.keys(agent.node.metadata).filter((k) => !(k in mock.node.metadata));
  expect(agentOnly.filter((k) => !AGENT_ONLY_METADATA.includes(k))).toEqual([]);
  // The key order: both in sorted order, as Go writes a map.
  expect(Object.keys(mock.node.metadata)).toEqual(Object.keys(mock.node.metadata).sort());
  // The certificate provider: the same but for the directory.
  const agentCerts = lab.certDir ?? '';
  const provider = JSON.stringify(agent.certificate_providers).replaceAll(agentCerts, certs);
  expect(mock.certificate_providers).toEqual(JSON.parse(provider));
  expect(mock.server_listener_resource_name_template).toBe(
    agent.server_listener_resource_name_template,
  );
  // The files: a chain of leaf and root from the mock's CA for the pod's identity, its key,
  // and the root pilot-agent was given too.
  const chain = readFileSync(join(certs, 'cert-chain.pem'), 'utf8');
  expect(chain.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
  const leaf = new X509Certificate(chain);
  expect(leaf.subjectAltName).toBe(
    `URI:spiffe://cluster.local/ns/${POD_ENV.POD_NAMESPACE}/sa/${POD_ENV.SERVICE_ACCOUNT}`,
  );
  const root = new X509Certificate(readFileSync(join(certs, 'root-cert.pem')));
  expect(leaf.verify(root.publicKey)).toBe(true);
  expect(readFileSync(join(certs, 'root-cert.pem'), 'utf8').trim()).toBe(
    readFileSync(join(agentCerts, 'root-cert.pem'), 'utf8').trim(),
  );
  expect(leaf.checkPrivateKey(createPrivateKey(readFileSync(join(certs, 'key.pem'))))).toBe(true);
});

it('says in one line what is wrong, exit code 2 or 1', async () => {
  const podEnv = { ...POD_ENV };
  const yaml = await cli.run(['bootstrap', '--grpc', '--format', 'yaml'], { podEnv });
  expect({ code: yaml.code, stderr: yaml.stderr.trim() }).toEqual({
    code: 2,
    stderr:
      'mock-istiod: --format does not go with --grpc: gRPC reads JSON only (see: mock-istiod --help)',
  });
  const certs = await cli.run(['bootstrap', '--certs', '/tmp/nowhere'], { podEnv });
  expect(certs.code).toBe(2);
  expect(certs.stderr).toMatch(/--certs goes with --grpc/);
  const noPod = await cli.run(['bootstrap', '--grpc'], { podEnv: {} });
  expect(noPod.code).toBe(2);
  expect(noPod.stderr).toMatch(/POD_NAME/);
  const noMock = await cli.run(
    ['bootstrap', '--grpc', '--certs', join(tmpdir(), 'never-written'), '--control-port', '1'],
    { podEnv },
  );
  expect(noMock.code).toBe(1);
  expect(noMock.stderr.trim().split('\n')).toHaveLength(1);
  expect(noMock.stderr).toMatch(/cannot reach mock-istiod at 127\.0\.0\.1:1/);
  expect(noMock.stdout).toBe('');
});
