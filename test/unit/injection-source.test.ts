/**
 * explain's injection values read from a captured istioctl kube-inject output
 * (test/fixtures/inject/orders-v1-injected.yaml, a real run): as YAML, as `inject --json`'s
 * body, and refused with the field that is missing or wrong.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sourceFromInjection, valuesFromRows } from '../../src/target/injection-source.js';
import { SEED_INJECTION_VALUES } from '../../src/explain/injection-values.js';
import { findPod, readInjectionValues } from '../../src/inject/injection-values.js';

const INJECTED = readFileSync('test/fixtures/inject/orders-v1-injected.yaml', 'utf8');

describe('explain values from injection output', () => {
  it('the captured lab injection gives the seed’s values, from either form', () => {
    const yaml = sourceFromInjection(INJECTED, 'orders.yaml');
    expect(yaml).toMatchObject({ kind: 'inject', differences: [] });
    expect(yaml.values).toEqual({ ...SEED_INJECTION_VALUES });
    const json = sourceFromInjection(JSON.stringify({ injected: INJECTED }), 'orders.json');
    expect(json.values).toEqual(yaml.values);
    expect(json.description).toBe('istioctl kube-inject output (orders.json)');
  });

  it('an injected -d with 8080 is used and listed as a difference', () => {
    const edited = INJECTED.replace('- 15090,15021,15020', '- 15090,15021,8080,15020');
    expect(edited).not.toBe(INJECTED);
    const source = sourceFromInjection(edited, 'edited.yaml');
    expect(source.values.excludedInboundPorts).toEqual([15090, 15021, 8080, 15020]);
    expect(source.differences).toEqual([
      'istio-init -d (inbound ports excluded): 15090,15021,8080,15020 (seed 15090,15021,15020)',
    ]);
  });

  it('refuses what is not injection output, saying what it lacks', () => {
    expect(() => sourceFromInjection('{"command": "x"}', 'body.json')).toThrow(
      'body.json: not injection output: injected: expected the injected YAML as a string',
    );
    expect(() => sourceFromInjection('kind: ConfigMap\n', 'cm.yaml')).toThrow(
      'cm.yaml: expected istioctl kube-inject output (a Deployment, Pod or other pod template), found none',
    );
    const pod = findPod(INJECTED.replace('- REDIRECT', '- NAT'));
    const rows = readInjectionValues(pod!);
    const result = valuesFromRows(rows);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems.map((p) => p.path)).toEqual(['mode']);
  });
});
