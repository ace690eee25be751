/**
 * The flags that choose an import's rewrites, shared by `import` and `serve
 * --from-config-dump` (docs/import.md).
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type * as Yaml from 'yaml';
import { lazyRequire } from '../../util/lazy-require.js';

/** Loaded on first use: start-up does not pay for the YAML parser when no file is read. */
const yaml = lazyRequire<typeof Yaml>(import.meta.url, 'yaml');
import type { ImportOptions } from '../../import/import-dump.js';
import { parseHostPort, type HostPort } from '../../import/json-walk.js';
import type { SdsRewrite } from '../../import/rewrite-sds.js';
import { TLS_FILES } from '../../tls/tls-files.js';
import { isObject } from '../../util/guards.js';
import { MockIstiodError } from '../../util/errors.js';
import { parseChoice } from '../args.js';

export const IMPORT_FLAGS = {
  'keep-versions': { type: 'boolean', default: false },
  upstream: { type: 'string' },
  'upstream-map': { type: 'string' },
  'loopback-listeners': { type: 'boolean', default: false },
  'listener-port': { type: 'string', multiple: true },
  'listener-port-offset': { type: 'string' },
  'bind-virtual-listeners': { type: 'boolean', default: false },
  sds: { type: 'string' },
  'original-dst-to-upstream': { type: 'boolean', default: false },
  'drop-unknown-extensions': { type: 'boolean', default: false },
} as const;

export const IMPORT_USAGE = `  --keep-versions          serve each type at the version the proxy last accepted
  --upstream <host:port>   every endpoint address → this one (a local upstream)
  --upstream-map <file>    endpoint addresses by cluster name, "addr:port" or "addr" → "host:port"
                           (a JSON or YAML object); the map wins over --upstream
  --loopback-listeners     listener addresses → 127.0.0.1 (::1 for IPv6)
  --listener-port <a>=<b>  listen on b where the capture listened on a (repeatable)
  --listener-port-offset <n>
                           add n to every other listener port (15001 → 15001+n)
  --bind-virtual-listeners bind the listeners only iptables reached (bind_to_port: false)
  --sds <plaintext|ca>     SDS secret references: stripped TLS, or the mock's CA files served
                           as Secrets over ADS (ca: needs --tls or --tls-dir)
  --original-dst-to-upstream
                           ORIGINAL_DST clusters → STATIC clusters at --upstream
  --drop-unknown-extensions
                           drop filters this Envoy does not have (Istio's own build's)
`;

export interface ImportFlagValues {
  'keep-versions'?: boolean;
  upstream?: string;
  'upstream-map'?: string;
  'loopback-listeners'?: boolean;
  'listener-port'?: string[];
  'listener-port-offset'?: string;
  'bind-virtual-listeners'?: boolean;
  sds?: string;
  'original-dst-to-upstream'?: boolean;
  'drop-unknown-extensions'?: boolean;
}

function hostPort(flag: string, text: string): HostPort {
  const parsed = parseHostPort(text);
  if (!parsed) throw new MockIstiodError('USAGE', `${flag}: expected host:port, got "${text}"`);
  return parsed;
}

function readUpstreamMap(path: string): Map<string, HostPort> {
  let value: unknown;
  try {
    value = yaml().parse(readFileSync(path, 'utf8'));
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new MockIstiodError('USAGE', `--upstream-map: cannot read ${path}: ${reason}`);
  }
  if (!isObject(value))
    throw new MockIstiodError(
      'USAGE',
      `--upstream-map: ${path}: expected { "<from>": "host:port" }`,
    );
  return new Map(
    Object.entries(value).map(([from, to]) => [
      from,
      hostPort(`--upstream-map: ${path}: ${from}`, String(to)),
    ]),
  );
}

function listenerPorts(values: string[] | undefined): Map<number, number> {
  return new Map(
    (values ?? []).map((text) => {
      const m = /^(\d{1,5})=(\d{1,5})$/.exec(text);
      if (!m)
        throw new MockIstiodError('USAGE', `--listener-port: expected <from>=<to>, got "${text}"`);
      return [Number(m[1]), Number(m[2])];
    }),
  );
}

/** The import options the flags ask for; `tlsDir` is where the mock's CA files are (for --sds ca). */
export function parseImportFlags(
  values: ImportFlagValues,
  tlsDir: string | undefined,
): Partial<ImportOptions> {
  const upstream =
    values.upstream === undefined ? undefined : hostPort('--upstream', values.upstream);
  const map =
    values['upstream-map'] === undefined ? undefined : readUpstreamMap(values['upstream-map']);
  const offsetText = values['listener-port-offset'] ?? '0';
  if (!/^-?\d{1,5}$/.test(offsetText))
    throw new MockIstiodError(
      'USAGE',
      `--listener-port-offset: expected a number, got "${offsetText}"`,
    );
  if (values['original-dst-to-upstream'] && !upstream)
    throw new MockIstiodError('USAGE', '--original-dst-to-upstream needs --upstream');
  return {
    endpoints: { ...(upstream ? { upstream } : {}), ...(map ? { map } : {}) },
    listeners: {
      loopback: values['loopback-listeners'] === true,
      portOffset: Number(offsetText),
      ports: listenerPorts(values['listener-port']),
      bindVirtual: values['bind-virtual-listeners'] === true,
    },
    sds: sdsRewrite(values.sds, tlsDir),
    originalDstToUpstream: values['original-dst-to-upstream'] === true,
    dropUnknownExtensions: values['drop-unknown-extensions'] === true,
    keepVersions: values['keep-versions'] === true,
  };
}

function sdsRewrite(value: string | undefined, tlsDir: string | undefined): SdsRewrite {
  const mode = parseChoice('--sds', value, ['keep', 'plaintext', 'ca'] as const, 'keep');
  if (mode !== 'ca') return { mode };
  if (tlsDir === undefined)
    throw new MockIstiodError('USAGE', '--sds ca needs --tls or --tls-dir (the CA files)');
  const dir = isAbsolute(tlsDir) ? tlsDir : resolve(tlsDir);
  return {
    mode,
    files: {
      rootCert: join(dir, TLS_FILES.rootCert),
      certChain: join(dir, TLS_FILES.certChain),
      key: join(dir, TLS_FILES.key),
    },
  };
}
