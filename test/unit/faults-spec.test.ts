import { describe, expect, it } from 'vitest';
import { parseFaultFlag } from '../../src/faults/flag-spec.js';
import { NACK_CATALOGUE } from '../../src/faults/nack-catalogue.js';
import { describeScenarios, scenarioNames } from '../../src/faults/registry.js';
import { resolveFault } from '../../src/faults/spec.js';
import { makeHttpListener } from '../../src/resources/listener.js';
import { makeProxylessService } from '../../src/resources/proxyless.js';
import { packResourceSet } from '../../src/snapshot/resource-set.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';

describe('resolveFault', () => {
  it('resolves scenario, params with defaults, scope and trigger', () => {
    const result = resolveFault({
      scenario: 'delay',
      id: 'slow-lds',
      params: { ms: '1s' },
      scope: { node: 'sidecar~*', types: 'LDS' },
      trigger: { onRequest: { type: 'cds' } },
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toMatchObject({
      id: 'slow-lds',
      params: { ms: 1_000, jitter: 0, seed: 1 },
      scope: { node: 'sidecar~*', types: [LISTENER_TYPE] },
      trigger: { kind: 'onRequest', typeUrl: CLUSTER_TYPE },
    });
  });

  it.each([
    [
      { scenario: 'down', scope: { types: ['LDS'] } },
      'scope',
      'down acts on the whole server: it takes no scope',
    ],
    [
      { scenario: 'nack', params: { config: 'unknown-cluster' }, scope: { types: ['CDS'] } },
      'scope.types',
      'nack chooses its resource type itself: scope.types does not apply',
    ],
    [
      { scenario: 'withhold', trigger: {} },
      'trigger',
      'expected exactly one of: after, afterResponses, onRequest',
    ],
    [
      { scenario: 'withhold', trigger: { after: 'later' } },
      'trigger.after',
      expect.stringContaining('expected a duration') as unknown,
    ],
    [
      { scenario: 'withhold', trigger: { afterResponses: 0 } },
      'trigger.afterResponses',
      'expected an integer ≥ 1',
    ],
    [
      { scenario: 'withhold', trigger: { onRequest: { type: 'XDS' } } },
      'trigger.onRequest.type',
      expect.any(String) as unknown,
    ],
    [
      { scenario: 'withhold', id: 'has space' },
      'id',
      expect.stringContaining('expected letters') as unknown,
    ],
    [
      { scenario: 'explode' },
      'scenario',
      `unknown scenario "explode"; valid scenarios: ${scenarioNames().join(', ')}`,
    ],
    [{ scenario: 'nack' }, 'params.config', expect.stringContaining('required') as unknown],
    ['withhold', '', 'expected a fault object with a "scenario"'],
  ])('%j → %s: %s', (input, path, message) => {
    const result = resolveFault(input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toContainEqual({ path, message });
  });
});

describe('--fault flags', () => {
  it('read the compact form into a fault', () => {
    expect(
      parseFaultFlag('delay:ms=2s,jitter=500ms,seed=7,types=CDS+LDS,node=sidecar~*,after=5s,id=d'),
    ).toEqual({
      ok: true,
      value: {
        scenario: 'delay',
        id: 'd',
        params: { ms: '2s', jitter: '500ms', seed: '7' },
        scope: { types: ['CDS', 'LDS'], node: 'sidecar~*' },
        trigger: { after: '5s' },
      },
    });
    expect(parseFaultFlag('withhold')).toEqual({ ok: true, value: { scenario: 'withhold' } });
    const flag = parseFaultFlag('partial:answer=CDS+LDS');
    expect(flag.ok && resolveFault(flag.value, '', { fromText: true }).ok).toBe(true);
  });

  it('read JSON, and report malformed input', () => {
    expect(parseFaultFlag('{"scenario":"down"}')).toEqual({
      ok: true,
      value: { scenario: 'down' },
    });
    expect(parseFaultFlag('{oops')).toMatchObject({
      ok: false,
      problems: [{ message: expect.stringContaining('not valid JSON') as unknown }],
    });
    expect(parseFaultFlag('delay:ms')).toEqual({
      ok: false,
      problems: [{ path: 'ms', message: 'expected key=value' }],
    });
  });
});

describe('the scenario registry', () => {
  it('describes each scenario with a JSON Schema and what its scope may hold', () => {
    const described = describeScenarios();
    expect(described.map((s) => s.name)).toEqual(scenarioNames());
    expect(described.find((s) => s.name === 'flap')).toMatchObject({
      scope: [],
      params: { required: ['down', 'up'] },
    });
    expect(described.find((s) => s.name === 'withhold')).toMatchObject({ releasable: true });
  });
});

describe('the nack catalogue', () => {
  const forEnvoy = NACK_CATALOGUE.filter((c) => c.client !== 'grpc');

  it('builds valid protos (Envoy rejects them for what they mean, not their encoding)', () => {
    for (const config of forEnvoy) {
      const packed = packResourceSet(config.build(new Map()));
      expect(packed.ok, config.name).toBe(true);
      if (packed.ok) expect([...packed.value.keys()], config.name).toEqual([config.typeUrl]);
    }
  });

  it('names its resources after the config, so Envoy’s message names the config', () => {
    for (const config of forEnvoy) {
      const names = (config.build(new Map()) as { name: string }[]).map((r) => r.name);
      expect(names.at(-1), config.name).toBe(`nack-${config.name}`);
    }
  });

  it("replaces a gRPC client's targets under their own names, and nothing else", () => {
    const packed = packResourceSet([
      ...makeProxylessService({
        host: 'echo.default.svc.cluster.local',
        port: 7070,
        endpoints: [],
      }),
      makeHttpListener({
        name: 'envoy-one',
        address: '127.0.0.1',
        port: 9,
        direction: 'OUTBOUND',
        cluster: 'x',
      }),
    ]);
    expect(packed.ok).toBe(true);
    if (!packed.ok) return;
    const config = NACK_CATALOGUE.find((c) => c.name === 'grpc-no-route');
    const built = config?.build(packed.value.get(LISTENER_TYPE) ?? new Map()) as {
      name: string;
      api_listener: { api_listener: Record<string, unknown> };
    }[];
    expect(built.map((l) => l.name)).toEqual(['echo.default.svc.cluster.local:7070']);
    expect(built[0]?.api_listener.api_listener).not.toHaveProperty('rds');
    expect(built[0]?.api_listener.api_listener).toHaveProperty('http_filters');
    expect(packResourceSet(built).ok).toBe(true);
  });
});
