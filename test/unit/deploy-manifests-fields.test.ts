/**
 * What the API schemas let through: a field the API does not have (`readinessprobe`,
 * `containerPorts`) is ignored by the OpenAPI validators, and dropped — or refused, under
 * kubectl's strict field validation — by the API server. So every object of deploy/ is also
 * type-checked, by the TypeScript compiler, as an object literal of the API type that
 * kubernetes-models generates from the same OpenAPI document: an unknown field at any depth
 * is an excess-property error.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';
import {
  readManifests,
  type Manifest,
  type ManifestBody,
} from '../support/harness/deploy-manifests.js';

const TYPES: Record<string, [module: string, type: string]> = {
  'v1/Namespace': ['kubernetes-models/v1', 'INamespace'],
  'v1/ServiceAccount': ['kubernetes-models/v1', 'IServiceAccount'],
  'v1/ConfigMap': ['kubernetes-models/v1', 'IConfigMap'],
  'v1/Service': ['kubernetes-models/v1', 'IService'],
  'apps/v1/Deployment': ['kubernetes-models/apps/v1', 'IDeployment'],
  'rbac.authorization.k8s.io/v1/ClusterRole': [
    'kubernetes-models/rbac.authorization.k8s.io/v1',
    'IClusterRole',
  ],
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': [
    'kubernetes-models/rbac.authorization.k8s.io/v1',
    'IClusterRoleBinding',
  ],
};

/** The compiler's errors for `objects`, each as `<label>: <message>`. */
function typeErrors(objects: { label: string; body: ManifestBody }[]): string[] {
  // A file of its own beside the manifests, so that `kubernetes-models` resolves from here.
  const file = join(packageRoot(), 'deploy', '__manifests__.ts');
  const lines: string[] = [];
  const labels: string[] = [];
  for (const [i, { label, body }] of objects.entries()) {
    const type = TYPES[`${body.apiVersion}/${body.kind}`];
    if (!type) throw new Error(`${label}: no API type for ${body.apiVersion} ${body.kind}`);
    lines.push(`import type { ${type[1]} as T${i} } from '${type[0]}';`);
    lines.push(`export const m${i}: T${i} = ${JSON.stringify(body)};`);
    labels.push(label, label);
  }
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) =>
    name === file
      ? ts.createSourceFile(name, source, version)
      : getSourceFile(name, version, ...rest);
  host.fileExists = (
    (exists) => (name: string) =>
      name === file || exists(name)
  )(host.fileExists.bind(host));
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line =
      d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    const where = d.file?.fileName === file ? labels[line] : (d.file?.fileName ?? '(global)');
    return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}

const label = (m: Manifest) => `${m.file}: ${m.kind} ${m.metadata.name}`;
const objects = readManifests().filter((m) => m.kind !== 'Kustomization');

describe('deploy/ has no field the Kubernetes API lacks', () => {
  it('every object type-checks as its API type', { timeout: 60_000 }, () => {
    const all = objects.map((m) => {
      const { file, ...body } = m;
      void file;
      return { label: label(m), body };
    });
    expect(typeErrors(all)).toEqual([]);
  });

  it('a misspelt field, deep in a Deployment, is an error', { timeout: 60_000 }, () => {
    const deployment = objects.find((m) => m.kind === 'Deployment')!;
    const { file, ...body } = structuredClone(deployment);
    void file;
    const container = (
      body as unknown as { spec: { template: { spec: { containers: object[] } } } }
    ).spec.template.spec.containers[0] as Record<string, unknown>;
    container['readinessprobe'] = container['readinessProbe'];
    delete container['readinessProbe'];
    const errors = typeErrors([{ label: 'broken', body }]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^broken: .*readinessprobe"' does not exist in type 'IContainer'/);
  });
});
