import { describe, expect, it } from 'vitest';
import { parseAllowedHosts } from '../../src/cli/serve/control-flags.js';
import { allowedHostProblem } from '../../src/control/browser-guard.js';

describe('serve --control-allowed-host', () => {
  it('takes the repeated flag, else the comma-separated variable', () => {
    expect(parseAllowedHosts({ 'control-allowed-host': ['a.example', '.b.example'] }, {})).toEqual([
      'a.example',
      '.b.example',
    ]);
    const env = { MOCK_ISTIOD_CONTROL_ALLOWED_HOSTS: ' a.example, ,.b.example ' };
    expect(parseAllowedHosts({}, env)).toEqual(['a.example', '.b.example']);
    expect(parseAllowedHosts({ 'control-allowed-host': ['c.example'] }, env)).toEqual([
      'c.example',
    ]);
    expect(parseAllowedHosts({}, {})).toEqual([]);
  });

  it('refuses a value with a scheme or a port in one line naming the flag', () => {
    expect(() => parseAllowedHosts({ 'control-allowed-host': ['http://a.example'] }, {})).toThrow(
      '--control-allowed-host: expected a host name without scheme or port (mock.example, or .example.com for it and every name under it), found "http://a.example"',
    );
    for (const bad of ['a.example:15014', '', '.', 'a..example', '*.example', 'a b']) {
      expect({ bad, problem: allowedHostProblem(bad) }).toEqual({
        bad,
        problem: expect.stringContaining('expected a host name') as unknown,
      });
    }
    for (const good of ['mock', 'istiod.istio-system.svc', '.example.com', 'my_host.local']) {
      expect({ good, problem: allowedHostProblem(good) }).toEqual({ good, problem: undefined });
    }
  });
});
