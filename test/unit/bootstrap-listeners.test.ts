/**
 * The readiness (15021) and Prometheus (15090) listeners a real sidecar's bootstrap has, and
 * the local clusters behind them (Istio's envoy_bootstrap.json is the reference).
 */
import { describe, expect, it } from 'vitest';
import {
  makeSidecarBootstrap,
  resolveSidecarBootstrapOptions,
  type JsonObject,
} from '../../src/bootstrap/sidecar.js';
import { envoyValidateError, envoyValidateOkLine } from '../../src/bootstrap/validate-message.js';

const withListeners = makeSidecarBootstrap({
  readinessPort: 15021,
  prometheusPort: 15090,
  agentPort: 15020,
});
const resources = withListeners['static_resources'] as {
  clusters: JsonObject[];
  listeners: JsonObject[];
};

/** The one route of a listener's HTTP connection manager, as `prefix → cluster`. */
function routeOf(listener: JsonObject | undefined): string {
  const hcm = JSON.stringify(listener);
  const prefix = /"prefix":"([^"]+)"/.exec(hcm)?.[1];
  const cluster = /"route":\{"cluster":"([^"]+)"\}/.exec(hcm)?.[1];
  return `${prefix} → ${cluster}`;
}

describe('probe listeners', () => {
  it('are left out by default (library use: no fixed ports)', () => {
    const plain = makeSidecarBootstrap()['static_resources'] as JsonObject;
    expect(plain['listeners']).toBeUndefined();
    expect((plain['clusters'] as JsonObject[]).map((c) => c['name'])).toEqual(['xds-grpc']);
  });

  it('route 15021 /healthz/ready to the agent on 15020, named like Istio', () => {
    const readiness = resources.listeners.find((l) => l['name'] === '127.0.0.1_15021');
    expect(readiness).toMatchObject({
      address: { socket_address: { address: '127.0.0.1', port_value: 15021 } },
    });
    expect(routeOf(readiness)).toBe('/healthz/ready → agent');
    const agent = resources.clusters.find((c) => c['name'] === 'agent');
    expect(JSON.stringify(agent)).toContain('"port_value":15020');
    expect(agent).toMatchObject({ type: 'STATIC', connect_timeout: '0.250s' });
  });

  it('route 15090 /stats/prometheus to Envoy’s own admin port', () => {
    const prometheus = resources.listeners.find((l) => l['name'] === '127.0.0.1_15090');
    expect(routeOf(prometheus)).toBe('/stats/prometheus → prometheus_stats');
    const stats = resources.clusters.find((c) => c['name'] === 'prometheus_stats');
    expect(JSON.stringify(stats)).toContain('"port_value":15000');
  });

  it('bind listenerHost, and tell istiod the ports in the node metadata', () => {
    const wildcard = makeSidecarBootstrap({ readinessPort: 15021, listenerHost: '0.0.0.0' });
    expect(JSON.stringify(wildcard)).toContain('"name":"0.0.0.0_15021"');
    expect((withListeners['node'] as { metadata: JsonObject }).metadata).toMatchObject({
      ENVOY_STATUS_PORT: 15021,
      ENVOY_PROMETHEUS_PORT: 15090,
    });
  });

  it('need fixed, distinct ports', () => {
    const result = resolveSidecarBootstrapOptions({
      readinessPort: 0,
      prometheusPort: 0,
      adminPort: 0,
      agentPort: 70000,
    });
    expect(result.ok ? [] : result.problems.map((p) => p.path)).toEqual([
      'readinessPort',
      'agentPort',
      'prometheusPort',
      'adminPort',
      'prometheusPort',
    ]);
    const same = resolveSidecarBootstrapOptions({ readinessPort: 15021, prometheusPort: 15021 });
    expect(same.ok ? [] : same.problems).toEqual([
      { path: 'prometheusPort', message: 'must differ from readinessPort' },
    ]);
  });
});

describe('envoy --mode validate output', () => {
  it('keeps Envoy’s error verbatim without the log decoration', () => {
    const output =
      '[2026-11-30 00:39:13.660][20332][warning][misc] [x.cc:1] a warning\n' +
      "[2026-11-30 00:39:13.660][20332][critical][main] [source/server/config_validation/server.cc:76] error initializing configuration 'b.yaml': first line\nsecond line\n";
    expect(envoyValidateError(output)).toBe(
      "error initializing configuration 'b.yaml': first line\nsecond line",
    );
    expect(envoyValidateError('plain text\n')).toBe('plain text');
    expect(envoyValidateOkLine("configuration 'b.yaml' OK\n")).toBe("configuration 'b.yaml' OK");
    expect(envoyValidateOkLine(output)).toBeUndefined();
  });
});
