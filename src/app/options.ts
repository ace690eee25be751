/**
 * Options of a mock istiod: they come in partial (`MockIstiodOptions`) and leave complete and
 * validated (`ResolvedOptions`), with named defaults (library defaults use port 0; the CLI
 * passes istiod's ports). What is resolved here is not resolved again further in.
 */
import pino, { type Logger } from 'pino';
import { makeLabResources } from '../resources/lab.js';
import type { Problem, Result } from '../util/problems.js';
import { VERSIONINGS, type Clock, type Versioning } from '../snapshot/version.js';
import { isProfile, PROFILES, type Profile } from '../core/profile.js';
import { RELAY_OUTAGES, type RelayOutage, type RelayTls } from '../server/relay-upstream.js';
import type { Endpoint } from '../core/endpoint.js';
import type { ResponsePolicy } from '../core/policy.js';
import { controlBindProblem } from '../control/auth.js';
import { allowedHostProblem } from '../control/browser-guard.js';
import { DEFAULT_SET, type ResourceSetSpec } from '../snapshot/validated-set.js';
import { isObject } from '../util/guards.js';
import { DEFAULT_LANG, isLang, LANGS, type Lang } from '../util/lang.js';
import { DEFAULT_JOURNAL_MAX_BYTES, DEFAULT_JOURNAL_SIZE } from '../journal/journal.js';
import { DEFAULT_NACK_TEXT_MAX } from '../core/stream-state.js';
import {
  DEFAULT_METRIC_LABEL_MAX_LENGTH,
  DEFAULT_METRIC_SERIES_MAX,
} from '../metrics/label-bounds.js';
import { DEFAULT_MAX_SUBSCRIPTIONS } from '../protocol/session.js';
import { defaultStreamsPerSecond } from '../server/stream-rate-limit.js';
import {
  resolveSecurityOptions,
  type CaOptions,
  type SecurityOptions,
  type TlsOptions,
} from '../ca/security-options.js';

export interface MockIstiodOptions {
  /** Where the ADS gRPC server listens (istiod: 15012). */
  xds: Endpoint;
  /** Where the HTTP control API listens (istiod's monitoring port is 15014); false: none. */
  control: Endpoint | false;
  /** Bearer token the control API requires (needed when it is not bound to loopback). */
  controlToken: string | undefined;
  /**
   * Host names the control API answers besides loopback names, IP addresses and the address
   * it listens on (`mock.example`, or `.example.com` for it and every name under it); any
   * other `Host` is refused with 403 unless the request carries the control token
   * (docs/security.md#web-pages-and-the-control-api). Default none.
   */
  controlAllowedHosts: readonly string[];
  /** The resource set served, Envoy resources in canonical JSON with `@type`; or resource
   * sets (`{ name, match, resources }`) to serve different proxies differently. */
  resources: readonly unknown[] | readonly ResourceSetSpec[];
  /** Serve resources from this file or directory instead (validated; see docs/resources.md). */
  resourcesPath: string | undefined;
  /** Reload `resourcesPath` when its files change. */
  watchResources: boolean;
  /**
   * How long the files must be left alone before a change is reloaded, in milliseconds
   * (default 200). Raise it for writers that pause in the middle of a file.
   */
  resourcesQuietMs: number;
  /** Accept streams but send nothing until `release()`. */
  withholdFirst: boolean;
  /**
   * Leave a name that has no resource out of a SotW response, as the mock did before it
   * followed istiod (off by default). istiod answers an EDS or RDS name it has nothing of
   * with an empty resource of that name (conformance case "SotW: names that do not exist:
   * EDS: an unknown name is answered with an empty ClusterLoadAssignment of that name"), so
   * a cluster Envoy warms on it becomes active without endpoints. With this on, it gets
   * nothing and warms for ever: the way to keep an EDS cluster (or an RDS listener) warming
   * in a test (test/conformance/omit-missing.test.ts).
   */
  omitMissingResources: boolean;
  /** A pino logger; silent by default. */
  logger: Logger;
  clock: Clock;
  /**
   * Written into every response's `control_plane.identifier` when not empty. Empty by
   * default: istiod leaves `control_plane` unset on xDS responses (conformance case
   * "Versions and nonces: control_plane is unset"); debug answers always carry istiod's JSON
   * identifier, with this as its `ID` (`mock-istiod` when empty).
   */
  controlPlaneId: string;
  /**
   * `serve --relay <host:port>`: relay every ADS stream to this istiod (plaintext, its 15010)
   * instead of serving the mock's own resources; its responses pass through the response
   * policy, so faults apply to istiod's configuration (docs/relay.md). Undefined: no relay.
   */
  relay: string | undefined;
  /**
   * With `relay`: drop from istiod's resources the extensions this Envoy does not know (Istio's
   * own build's filters), as `generate` does, so that an upstream Envoy accepts them; off,
   * istiod's responses pass as they came. `serve --relay-drop-unknown-extensions`.
   */
  relayDropUnknownExtensions: boolean;
  /**
   * With `relay`: what an upstream outage does to the proxies' streams. `pass` (the default)
   * ends them, as a dead istiod would; `hold` keeps them open, the proxies running what they
   * have, and reconnects upstream with a growing back-off. `serve --relay-outage`.
   */
  relayOutage: RelayOutage;
  /**
   * With `relay`: TLS to istiod (its 15012) instead of plaintext: the root to trust, and the
   * client certificate or token to present (serve's `--relay-tls-root`, `--relay-cert`,
   * `--relay-key`, `--relay-token-file`). Undefined: plaintext.
   */
  relayTls: RelayTls | undefined;
  /** With `relay`: record what istiod sends each proxy to this file (`serve --record`). */
  relayRecord: string | undefined;
  /**
   * With `relay`: the CA service is istiod's too. Each CreateCertificate goes to the upstream
   * istiod (over `relayTls`: istiod signs only on its TLS port) with the caller's own token,
   * and istiod's answer comes back; false (the default): the mock's CA signs.
   * `serve --relay-ca`.
   */
  relayCa: boolean;
  /**
   * Delta xDS with per-resource versions, as the xDS protocol allows and istiod does not do:
   * each delta `Resource` carries a hash of its content, and a reconnect's
   * `initial_resource_versions` at those versions is not sent again. Off by default: istiod
   * sends resources unversioned, and a reconnect everything (conformance cases "a first CDS
   * request with no names is a wildcard: every cluster, unversioned" and "a CDS reconnect
   * with initial_resource_versions is sent every cluster again"; with the option, the cases
   * of test/conformance/delta-resource-versions.test.ts).
   */
  deltaResourceVersions: boolean;
  /**
   * How responses are versioned (snapshot/version.ts). `push`, the default, is istiod's: one
   * version per push shared by every type, and any change (or `push()`) re-sends every type
   * a stream watches at the new version; conformance rules "Versions and nonces" and
   * "Pushes". `per-type` is the mock's former scheme, kept for tests that want only changed
   * types re-sent, and delta resources with content versions (it implies
   * `deltaResourceVersions`; conformance:
   * test/conformance/per-type-versions.test.ts). `serve --versioning per-type`.
   */
  versioning: Versioning;
  /**
   * Whose rules the sessions follow where istiod departs from the xDS protocol document:
   * `istiod` (the default) or `xds-spec`, for generic xDS clients (core/profile.ts,
   * docs/profiles.md). `xds-spec` implies `versioning: 'per-type'`, `deltaResourceVersions`
   * and `omitMissingResources`. `serve --profile xds-spec`.
   */
  profile: Profile;
  /** Extra response policies (faults), consulted after the withhold switch, in order. */
  policies: readonly ResponsePolicy[];
  /** How many journal entries to keep in memory (a ring buffer). */
  journalSize: number;
  /**
   * The most bytes the journal's entries may hold (default 32 MiB, an estimate from the
   * length of their texts): past it the oldest entries go, whatever `journalSize` allows.
   */
  journalMaxBytes: number;
  /**
   * The most of a NACK's `error_detail.message` kept, in characters (default 4096): the rest
   * is cut, with a marker that gives its whole length (docs/RELIABILITY.md, "Limits").
   */
  nackTextMax: number;
  /** The most characters of a metric label value a client chose (default 256). */
  metricLabelMaxLength: number;
  /** The most label sets a metric shows; more are counted as `other` (default 1000). */
  metricSeriesMax: number;
  /**
   * The most subscriptions one xDS stream may hold: each resource name it watches, and each
   * type it watches with no names (default DEFAULT_MAX_SUBSCRIPTIONS, 100,000). A request that
   * takes a stream past it ends that stream with RESOURCE_EXHAUSTED. istiod has no such
   * limit; the names are the client's to choose (docs/RELIABILITY.md, "Limits").
   * `serve --max-subscriptions`.
   */
  maxSubscriptions: number;
  /**
   * Serve the xDS port over TLS, as istiod's 15012 (docs/security.md): `true` (certificates
   * in a temporary directory), or `{ dir, hosts }`; false: plaintext h2c.
   */
  tls: boolean | Partial<TlsOptions>;
  /** The CA service beside ADS (TLS on or off); missing fields take Istio's defaults. */
  ca: Partial<CaOptions>;
  /**
   * Authenticate xDS streams on the TLS port as istiod does (default true): the pod's token
   * (`authorization: Bearer <token>`, audience istio-ca) or a client certificate issued by the
   * mock's CA; otherwise `UNAUTHENTICATED "authentication failure"`. False turns it off.
   */
  xdsAuth: boolean;
  /**
   * Refuse istiod's debug types over ADS (`istio.io/debug/*`) to a stream without a verified
   * identity, as istiod does by default (`ENABLE_DEBUG_ENDPOINT_AUTH`): UNAUTHENTICATED
   * "authentication required" (conformance case "Debug types: syncz without a verified
   * identity ends the stream"), and limit a caller outside istio-system to its own namespace's
   * proxies in `syncz` and the config dumps (conformance cases "Debug types by namespace").
   * False answers them on any stream, plaintext included, and lifts the namespace filter:
   * handy for `istioctl proxy-status` against a plaintext mock. Either way a verified caller
   * outside istio-system may ask `istio.io/debug` only for `config_dump`, `ndsz` and `edsz`,
   * as istiod's DebugGen (src/debug/debug-access.ts).
   */
  debugAuth: boolean;
  /**
   * Serve ztunnel nodes, as istiod does with `PILOT_ENABLE_AMBIENT=true`. Off by default, as in
   * istiod: a ztunnel stream ends with UNKNOWN "ztunnel requires PILOT_ENABLE_AMBIENT=true"
   * (conformance case "The node: a ztunnel node ends the stream"; with the option on, the
   * stream is served from the resources a sidecar gets, or the set matching its node).
   */
  ambient: boolean;
  /**
   * istiod's connection rate limit: new xDS streams let in a second, with a burst of 1; a stream
   * waits up to 1 s for its turn, else ends with RESOURCE_EXHAUSTED "request rate limit
   * exceeded: …" (conformance: test/conformance/rate-limit.test.ts). Default istiod's,
   * min(15 + 5 × os.availableParallelism(), 100); 0 turns it off, for tests and benchmarks that
   * connect thousands of proxies at once. `serve --max-streams-per-second`.
   */
  maxStreamsPerSecond: number;
  /**
   * The language its users asked for (`serve --lang ko`, or `LANG=ko_*`): remembered, not
   * used by the xDS side; the live page (`/ui`) starts in it. Default `en`.
   */
  lang: Lang;
}

/** The options a mock istiod runs with: complete, checked, in the shape its rooms take. */
export interface ResolvedOptions extends Omit<
  MockIstiodOptions,
  'resources' | 'tls' | 'ca' | 'xdsAuth'
> {
  /** The start-up resources as sets (a bare list of resources is the default set). */
  resourceSets: readonly ResourceSetSpec[];
  /** TLS on the xDS port and the CA beside it, with Istio's defaults filled in. */
  security: SecurityOptions;
}

export const DEFAULT_HOST = '127.0.0.1';

/** `host:port` or `[v6]:port`, port 1-65535. */
const HOST_PORT =
  /^(?:\[[^\]]+\]|[^:[\]\s]+):(?:[1-9]\d{0,3}|[1-5]\d{4}|6[0-4]\d{3}|65[0-4]\d{2}|655[0-2]\d|6553[0-5])$/;

export function defaultOptions(): MockIstiodOptions {
  return {
    xds: { host: DEFAULT_HOST, port: 0 },
    control: { host: DEFAULT_HOST, port: 0 },
    controlToken: undefined,
    controlAllowedHosts: [],
    resources: makeLabResources(),
    resourcesPath: undefined,
    watchResources: true,
    resourcesQuietMs: 200,
    withholdFirst: false,
    omitMissingResources: false,
    logger: pino({ level: 'silent' }),
    clock: () => new Date(),
    controlPlaneId: '',
    relay: undefined,
    relayDropUnknownExtensions: false,
    relayOutage: 'pass',
    relayTls: undefined,
    relayRecord: undefined,
    relayCa: false,
    deltaResourceVersions: false,
    versioning: 'push',
    profile: 'istiod',
    policies: [],
    journalSize: DEFAULT_JOURNAL_SIZE,
    journalMaxBytes: DEFAULT_JOURNAL_MAX_BYTES,
    nackTextMax: DEFAULT_NACK_TEXT_MAX,
    metricLabelMaxLength: DEFAULT_METRIC_LABEL_MAX_LENGTH,
    metricSeriesMax: DEFAULT_METRIC_SERIES_MAX,
    maxSubscriptions: DEFAULT_MAX_SUBSCRIPTIONS,
    tls: false,
    ca: {},
    xdsAuth: true,
    debugAuth: true,
    ambient: false,
    maxStreamsPerSecond: defaultStreamsPerSecond(),
    lang: DEFAULT_LANG,
  };
}

function checkEndpoint(path: string, endpoint: Endpoint, problems: Problem[]): void {
  if (typeof endpoint.host !== 'string' || endpoint.host === '') {
    problems.push({ path: `${path}.host`, message: 'expected a host name or IP address' });
  }
  const port = endpoint.port;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    problems.push({
      path: `${path}.port`,
      message: `expected a port 0-65535, found ${String(port)}`,
    });
  }
}

function checkAllowedHosts(hosts: readonly string[], problems: Problem[]): void {
  if (!Array.isArray(hosts)) {
    problems.push({ path: 'controlAllowedHosts', message: 'expected a list of host names' });
    return;
  }
  hosts.forEach((host: unknown, i) => {
    const problem = typeof host === 'string' ? allowedHostProblem(host) : 'expected a host name';
    if (problem) problems.push({ path: `controlAllowedHosts[${i}]`, message: problem });
  });
}

/**
 * The `resources` option holds Envoy resources (each with `@type`: the default set) or sets
 * (`{ name, match, resources }`); which of the two is decided here, once.
 */
function asResourceSets(resources: readonly unknown[]): readonly ResourceSetSpec[] {
  const isSets =
    resources.length > 0 &&
    resources.every((r) => isObject(r) && 'resources' in r && !('@type' in r));
  return isSets ? (resources as readonly ResourceSetSpec[]) : [{ name: DEFAULT_SET, resources }];
}

export function resolveOptions(partial: Partial<MockIstiodOptions> = {}): Result<ResolvedOptions> {
  const { tls, ca, xdsAuth, resources, ...options } = { ...defaultOptions(), ...partial };
  const problems: Problem[] = [];
  checkEndpoint('xds', options.xds, problems);
  if (options.control) {
    checkEndpoint('control', options.control, problems);
    const bind = controlBindProblem(options.control.host, options.controlToken);
    if (bind) problems.push({ path: 'controlToken', message: bind });
    checkAllowedHosts(options.controlAllowedHosts, problems);
  }
  const limits = [
    'journalSize',
    'journalMaxBytes',
    'nackTextMax',
    'metricLabelMaxLength',
    'metricSeriesMax',
  ];
  for (const path of limits) {
    const value = options[path as 'journalSize'];
    if (!Number.isInteger(value) || value < 1) {
      problems.push({ path, message: `expected a positive integer, found ${String(value)}` });
    }
  }
  if (!Number.isSafeInteger(options.maxSubscriptions) || options.maxSubscriptions < 1) {
    problems.push({
      path: 'maxSubscriptions',
      message: `expected a positive integer, found ${String(options.maxSubscriptions)}`,
    });
  }
  if (!Number.isInteger(options.resourcesQuietMs) || options.resourcesQuietMs < 1) {
    problems.push({
      path: 'resourcesQuietMs',
      message: `expected a positive integer (milliseconds), found ${String(options.resourcesQuietMs)}`,
    });
  }
  const rate = options.maxStreamsPerSecond;
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0) {
    problems.push({
      path: 'maxStreamsPerSecond',
      message: `expected a number of streams a second, 0 or more (0: no limit), found ${String(rate)}`,
    });
  }
  if (!VERSIONINGS.includes(options.versioning)) {
    problems.push({
      path: 'versioning',
      message: `expected ${VERSIONINGS.join(' or ')}, found ${JSON.stringify(options.versioning)}`,
    });
  }
  if (options.relay !== undefined && !HOST_PORT.test(String(options.relay))) {
    problems.push({
      path: 'relay',
      message: `expected the upstream istiod as host:port (istiod.istio-system.svc:15010), found ${JSON.stringify(options.relay)}`,
    });
  }
  if (typeof options.relayCa !== 'boolean') {
    problems.push({ path: 'relayCa', message: 'expected true or false' });
  } else if (options.relayCa && options.relay === undefined) {
    problems.push({ path: 'relayCa', message: "relays the CA to the relay's istiod: needs relay" });
  }
  if (!RELAY_OUTAGES.includes(options.relayOutage)) {
    problems.push({
      path: 'relayOutage',
      message: `expected ${RELAY_OUTAGES.join(' or ')}, found ${JSON.stringify(options.relayOutage)}`,
    });
  }
  if (!isProfile(options.profile)) {
    problems.push({
      path: 'profile',
      message: `expected ${PROFILES.join(' or ')}, found ${JSON.stringify(options.profile)}`,
    });
  } else if (options.profile === 'xds-spec') specProfileProblems(partial, problems);
  if (!isLang(options.lang)) {
    problems.push({
      path: 'lang',
      message: `expected ${LANGS.join(' or ')}, found ${JSON.stringify(options.lang)}`,
    });
  }
  const security = resolveSecurityOptions(tls, ca, xdsAuth);
  if (!security.ok) problems.push(...security.problems);
  if (!Array.isArray(resources)) {
    problems.push({ path: 'resources', message: 'expected an array of resources' });
  }
  if (problems.length > 0 || !security.ok) return { ok: false, problems };
  const resourceSets = asResourceSets(resources);
  const profiled = options.profile === 'xds-spec' ? { ...options, ...SPEC_OPTIONS } : options;
  return { ok: true, value: { ...profiled, resourceSets, security: security.value } };
}

/** What the `xds-spec` profile sets: a version per type, delta resource versions, no filler. */
const SPEC_OPTIONS = {
  versioning: 'per-type',
  deltaResourceVersions: true,
  omitMissingResources: true,
} as const satisfies Partial<MockIstiodOptions>;

/** An option given against what the `xds-spec` profile sets is a mistake, not a preference. */
function specProfileProblems(partial: Partial<MockIstiodOptions>, problems: Problem[]): void {
  for (const [path, value] of Object.entries(SPEC_OPTIONS)) {
    const given = partial[path as keyof typeof SPEC_OPTIONS];
    if (given !== undefined && given !== value) {
      problems.push({
        path,
        message: `the xds-spec profile sets ${path} to ${JSON.stringify(value)}, found ${JSON.stringify(given)}`,
      });
    }
  }
}
