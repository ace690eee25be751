/**
 * `mock-istiod serve`: runs the mock on istiod's ports (15012 xDS, 15014 control) with the
 * lab's resources, until SIGINT/SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { quietGrpcJs } from '../../util/grpc-js.js';
import { LAB_DEFAULTS, LAB_VARIANTS, type LabVariant } from '../../resources/lab.js';
import { serveMockIstiod, type ServeSource } from '../../app/serve.js';
import { VERSIONINGS, type Versioning } from '../../snapshot/version.js';
import { DEFAULT_HOST } from '../../app/options.js';
import { PROFILES } from '../../core/profile.js';
import { RELAY_OUTAGES, type RelayTls } from '../../server/relay-upstream.js';
import { parseFlags } from '../flags.js';
import { parseChoice, parsePort } from '../args.js';
import { armShutdownDeadline } from '../shutdown-deadline.js';
import { createCliLogger, LOG_LEVELS } from '../logger.js';
import { FAULT_USAGE, parseFaultFlags } from './fault-flags.js';
import { JOURNAL_USAGE, parseJournalSize } from './journal-flag.js';
import { parseTlsFlags, TLS_FLAGS, TLS_USAGE } from './tls-flags.js';
import { LIMIT_FLAGS, LIMIT_USAGE, parseLimitFlags } from './limit-flags.js';
import { parseRateFlags, RATE_FLAGS, RATE_USAGE } from './rate-flags.js';
import { IMPORT_FLAGS, IMPORT_USAGE, parseImportFlags } from './import-flags.js';
import { GENERATE_FLAGS, GENERATE_USAGE, generateOptionsFromFlags } from './generate-flags.js';
import { MockIstiodError } from '../../util/errors.js';
import { DURATION_HINT, parseDuration } from '../../util/duration.js';
import { resolveLang } from '../../util/lang.js';
import { SERVE_TEXT } from './serve-messages.js';
import { formatEndpoint } from '../../core/endpoint.js';
import { CONTROL_FLAGS, CONTROL_USAGE, parseAllowedHosts } from './control-flags.js';

export const SERVE_USAGE = `Usage: mock-istiod serve [options]

Serves xDS (ADS over gRPC) like istiod, with the sidecar lab's listeners and clusters.

Options (environment variable in brackets):
  --host <addr>            xDS listen address [MOCK_ISTIOD_HOST] (default ${DEFAULT_HOST})
  --port <port>            xDS listen port [MOCK_ISTIOD_PORT] (default 15012)
  --control-host <addr>    control API address [MOCK_ISTIOD_CONTROL_HOST] (default ${DEFAULT_HOST})
  --control-port <port>    control API port [MOCK_ISTIOD_CONTROL_PORT] (default 15014)
  --control-token <token>  require "Authorization: Bearer <token>" on the control API
                           [MOCK_ISTIOD_CONTROL_TOKEN] (needed when it is not on loopback)
${CONTROL_USAGE}  --withhold-first         accept streams but send nothing until POST /control/release
  --delta-resource-versions
                           delta resources carry content versions, and a reconnect is sent
                           only what its initial_resource_versions lack (istiod: neither)
  --versioning <scheme>    push (istiod's: one version per push, every type re-sent) or
                           per-type (only changed types re-sent, each with its own version)
                           (default push)
  --omit-missing-resources leave EDS/RDS names without a resource out of SotW responses
                           (istiod sends an empty one; with this, what named it warms)
  --relay <host:port>      relay every ADS stream to this istiod (plaintext, its 15010), its
                           configuration passing through the faults (docs/relay.md)
  --relay-drop-unknown-extensions
                           drop from istiod's resources the filters of Istio's own Envoy
                           build, which this Envoy does not have (as generate does)
  --record <file>          with --relay: write what istiod sends each proxy, as JSON lines
  --replay <file>          serve a recording with no istiod: each proxy its last state
  --replay-timeline        with --replay: re-enact the recording on its timeline instead (each
                           proxy starts at istiod's first state and gets each later push at its
                           recorded time after that, counted from when the proxy connects)
  --relay-tls-root <file>  reach istiod over TLS (its 15012), trusting this root; with
                           --relay-cert/--relay-key a client certificate, with
                           --relay-token-file a service account token, as pilot-agent does
  --relay-outage <policy>  pass (default: istiod gone ends the proxies' streams, as a dead
                           istiod would) or hold (they stay open on what they have, and the
                           relay reconnects upstream)
  --relay-ca               with --relay: the CA service is istiod's too (each CSR goes to
                           istiod with the pod's own token; istiod signs only on its TLS port)
  --profile <rules>        istiod (default: istiod's departures from the xDS protocol, as
                           istiod-ref shows them) or xds-spec (the protocol document's rules,
                           for xDS clients not built for istiod: names honoured for CDS and
                           LDS, removed_resources for every type, a version per type;
                           docs/profiles.md)
  --resources <path>       serve Envoy resources from a YAML/JSON file or a directory of them,
                           reloaded when they change (default: the lab; see docs/resources.md)
  --resources-quiet <d>    how long the files must be left alone before a change is reloaded
                           (default 200ms; raise it for writers that pause mid-file)
  --from-config-dump <file>
                           serve what a captured Envoy config_dump holds (docs/import.md),
                           rewritten by these flags:
${IMPORT_USAGE}  --from-istio <file.yaml>  serve what istiod itself sends a pod, generated from Kubernetes
                           YAML and Istio configs (repeatable; docs/generate.md), with the
                           import's flags above and:
${GENERATE_USAGE}${FAULT_USAGE}  --lab <variant>          which lab to serve: lab (the course's), eds-rds (endpoints over
                           EDS, routes over RDS) or mtls (virtualInbound in Istio's mutual TLS,
                           certificates over SDS from sds-grpc; docs/resources.md) (default lab)
  --listener-address <a>   address of the lab's listeners (default ${LAB_DEFAULTS.listenerAddress})
  --inbound-port <port>    virtualInbound port (default ${LAB_DEFAULTS.inboundPort})
  --outbound-port <port>   virtualOutbound port (default ${LAB_DEFAULTS.outboundPort})
  --app-address <addr>     the app behind inbound|<port>|| (default ${LAB_DEFAULTS.appAddress})
  --app-port <port>        the app's port (default ${LAB_DEFAULTS.appPort})
${JOURNAL_USAGE}${LIMIT_USAGE}${TLS_USAGE}${RATE_USAGE}  --log-level <level>      ${LOG_LEVELS.join('|')} [LOG_LEVEL] (default info)
  --log-format <format>    pretty|json|auto (default auto: pretty in a terminal)
  --lang <en|ko>           the language of serve's own hints, remembered for the live page
                           (default: from LC_ALL, LC_MESSAGES or LANG, e.g. ko_KR.UTF-8;
                           else en); log lines stay in English
  -h, --help               show this help
`;

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  'control-host': { type: 'string' },
  'control-port': { type: 'string' },
  'control-token': { type: 'string' },
  ...CONTROL_FLAGS,
  'withhold-first': { type: 'boolean', default: false },
  'delta-resource-versions': { type: 'boolean', default: false },
  versioning: { type: 'string' },
  profile: { type: 'string' },
  relay: { type: 'string' },
  'relay-drop-unknown-extensions': { type: 'boolean', default: false },
  'relay-outage': { type: 'string' },
  record: { type: 'string' },
  'relay-ca': { type: 'boolean', default: false },
  replay: { type: 'string' },
  'replay-timeline': { type: 'boolean', default: false },
  'relay-tls-root': { type: 'string' },
  'relay-cert': { type: 'string' },
  'relay-key': { type: 'string' },
  'relay-token-file': { type: 'string' },
  'omit-missing-resources': { type: 'boolean', default: false },
  resources: { type: 'string' },
  'resources-quiet': { type: 'string' },
  'from-config-dump': { type: 'string' },
  ...IMPORT_FLAGS,
  'from-istio': { type: 'string', multiple: true },
  ...GENERATE_FLAGS,
  fault: { type: 'string', multiple: true },
  scenario: { type: 'string' },
  lab: { type: 'string' },
  'listener-address': { type: 'string' },
  'inbound-port': { type: 'string' },
  'outbound-port': { type: 'string' },
  'app-address': { type: 'string' },
  'app-port': { type: 'string' },
  'log-level': { type: 'string' },
  journal: { type: 'string' },
  'journal-size': { type: 'string' },
  'log-format': { type: 'string' },
  lang: { type: 'string' },
  ...TLS_FLAGS,
  ...LIMIT_FLAGS,
  ...RATE_FLAGS,
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export async function serve(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const values = parseFlags(argv, OPTIONS, SERVE_USAGE);
  if (!values) return 0;
  const lang = resolveLang(values.lang, env);
  const text = SERVE_TEXT[lang];
  // grpc-js writes its own errors to stderr; ours say the same thing in one clear line.
  if (env.GRPC_VERBOSITY === undefined) quietGrpcJs();
  const log = createCliLogger(
    parseChoice('--log-level', values['log-level'] ?? env.LOG_LEVEL, LOG_LEVELS, 'info'),
    parseChoice('--log-format', values['log-format'], ['pretty', 'json', 'auto'] as const, 'auto'),
  );
  // Caught from here on: a signal while the mock starts (it may already have said it serves)
  // must still stop it gracefully, not end the process on the spot.
  const signals = catchSignals(log, text);
  const faultFlags = parseFaultFlags(values.fault, values.scenario);
  const security = parseTlsFlags(values, env);
  const dump = values['from-config-dump'];
  const istio = values['from-istio'];
  const sources = [
    ['--from-config-dump', dump],
    ['--from-istio', istio],
    ['--resources', values.resources],
    ['--lab', values.lab],
    ['--replay', values.replay],
    ['--relay', values.relay],
  ].filter(([, v]) => v !== undefined);
  if (sources.length > 1)
    throw new MockIstiodError(
      'USAGE',
      `${sources.map(([flag]) => flag).join(' and ')}: choose one`,
    );
  if (values['replay-timeline'] && values.replay === undefined) {
    throw new MockIstiodError(
      'USAGE',
      '--replay-timeline: re-enacts a recording: needs --replay <file>',
    );
  }
  const tlsDir = security.tls === false || security.tls === true ? undefined : security.tls.dir;
  const variant = parseChoice(
    '--lab',
    values.lab,
    Object.keys(LAB_VARIANTS) as LabVariant[],
    'lab',
  );
  const source: ServeSource = values.replay
    ? { kind: 'replay', file: values.replay, timeline: values['replay-timeline'] }
    : istio
      ? { kind: 'istio', generate: generateOptionsFromFlags(istio, values, tlsDir, env) }
      : dump
        ? { kind: 'config-dump', file: dump, rewrites: parseImportFlags(values, tlsDir) }
        : {
            kind: 'lab',
            lab: {
              ...LAB_VARIANTS[variant],
              listenerAddress: values['listener-address'] ?? LAB_DEFAULTS.listenerAddress,
              inboundPort: parsePort(
                '--inbound-port',
                values['inbound-port'],
                LAB_DEFAULTS.inboundPort,
              ),
              outboundPort: parsePort(
                '--outbound-port',
                values['outbound-port'],
                LAB_DEFAULTS.outboundPort,
              ),
              appAddress: values['app-address'] ?? LAB_DEFAULTS.appAddress,
              appPort: parsePort('--app-port', values['app-port'], LAB_DEFAULTS.appPort),
            },
          };
  const token = values['control-token'] ?? (env.MOCK_ISTIOD_CONTROL_TOKEN || undefined);
  const {
    mock: server,
    started,
    stop,
  } = await serveMockIstiod({
    source,
    journalFile: values.journal,
    faults: faultFlags.faults,
    timeline: faultFlags.timeline,
    options: {
      xds: {
        host: values.host ?? env.MOCK_ISTIOD_HOST ?? DEFAULT_HOST,
        port: parsePort('--port', values.port ?? env.MOCK_ISTIOD_PORT, 15012),
      },
      control: {
        host: values['control-host'] ?? env.MOCK_ISTIOD_CONTROL_HOST ?? DEFAULT_HOST,
        port: parsePort(
          '--control-port',
          values['control-port'] ?? env.MOCK_ISTIOD_CONTROL_PORT,
          15014,
        ),
      },
      controlToken: token,
      controlAllowedHosts: parseAllowedHosts(values, env),
      withholdFirst: values['withhold-first'],
      // Given only when set, so that a profile's own settings are not taken for a contradiction.
      ...(values['delta-resource-versions'] && { deltaResourceVersions: true }),
      ...(values.versioning !== undefined && { versioning: parseVersioning(values.versioning) }),
      ...(values['omit-missing-resources'] && { omitMissingResources: true }),
      ...(values.relay !== undefined && { relay: values.relay }),
      relayDropUnknownExtensions: values['relay-drop-unknown-extensions'],
      relayOutage: parseChoice('--relay-outage', values['relay-outage'], RELAY_OUTAGES, 'pass'),
      relayTls: parseRelayTls(values),
      ...(values.record !== undefined && { relayRecord: values.record }),
      ...(values['relay-ca'] && { relayCa: true }),
      ...(values.profile !== undefined && {
        profile: parseChoice('--profile', values.profile, PROFILES, 'istiod'),
      }),
      resourcesPath: values.resources,
      resourcesQuietMs: parseQuiet(values['resources-quiet']),
      journalSize: parseJournalSize(values['journal-size']),
      ...parseLimitFlags(values),
      logger: log,
      lang,
      ...security,
      ...parseRateFlags(values, env),
    },
  });
  const control = `http://${started.control?.host}:${started.control?.port}`;
  log.info(text.where({ xds: server.xdsAddress, control }));
  if (started.control) {
    const page = `http://${formatEndpoint(started.control)}/ui/`;
    log.info({ page }, text.page({ page, token: token !== undefined }));
  }
  if (values['withhold-first']) log.warn(text.withholding({ control }));
  return signals.stopWith(stop);
}

function parseVersioning(value: string): Versioning {
  const scheme = VERSIONINGS.find((v) => v === value);
  if (!scheme)
    throw new MockIstiodError(
      'USAGE',
      `--versioning: expected ${VERSIONINGS.join(' or ')}, got "${value}"`,
    );
  return scheme;
}

/** `--relay-tls-root` and what goes with it, each file read now or named in the error. */
function parseRelayTls(values: Record<string, unknown>): RelayTls | undefined {
  const flags = ['relay-tls-root', 'relay-cert', 'relay-key', 'relay-token-file'] as const;
  const path = (flag: (typeof flags)[number]) =>
    typeof values[flag] === 'string' ? values[flag] : undefined;
  const read = (flag: (typeof flags)[number]): string | undefined => {
    const file = path(flag);
    if (file === undefined) return undefined;
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code ?? String(err);
      throw new MockIstiodError('USAGE', `--${flag}: cannot read ${file}: ${reason}`);
    }
  };
  const rootCert = read('relay-tls-root');
  if (rootCert === undefined) {
    const stray = flags.find((flag) => path(flag) !== undefined);
    if (stray) throw new MockIstiodError('USAGE', `--${stray} goes with --relay-tls-root`);
    return undefined;
  }
  const cert = read('relay-cert');
  const key = read('relay-key');
  if ((cert === undefined) !== (key === undefined)) {
    throw new MockIstiodError('USAGE', '--relay-cert and --relay-key go together');
  }
  const token = read('relay-token-file')?.trim();
  return { rootCert, ...(cert && key && { cert, key }), ...(token && { token }) };
}

function parseQuiet(value: string | undefined): number {
  if (value === undefined) return 200;
  const ms = parseDuration(value);
  if (ms === undefined || ms < 1)
    throw new MockIstiodError(
      'USAGE',
      `--resources-quiet: expected ${DURATION_HINT}, got "${value}"`,
    );
  return ms;
}

/** A log line on the way out: a log that cannot be written must not stop the shutdown. */
function say(write: () => void): void {
  try {
    write();
  } catch {
    // Nowhere left to say it.
  }
}

/** The documented bound on a graceful shutdown (docs/RELIABILITY.md#stopping). */
const SHUTDOWN_BOUND_MS = 10_000;

/**
 * SIGINT and SIGTERM, caught from before the mock starts. The first stops the mock once there
 * is one (`stopWith`): one that came while it started is kept until then, where without a
 * listener the process would have ended on the spot, between saying it serves and listening.
 * A second exits at once.
 */
function catchSignals(
  log: { info(msg: string): void },
  text: (typeof SERVE_TEXT)['en'],
): { stopWith(close: () => Promise<void>): Promise<number> } {
  let caught: NodeJS.Signals | undefined;
  let stop: ((signal: NodeJS.Signals) => void) | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (caught !== undefined) {
      say(() => log.info(text.exitingNow({ signal })));
      process.exit(1);
    }
    caught = signal;
    if (stop) stop(signal);
    else say(() => log.info(text.startingStill({ signal })));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    stopWith: (close) =>
      new Promise((resolve) => {
        stop = (signal) => {
          // A bound on the graceful part, armed before anything is written: streams get
          // UNAVAILABLE and the journal is flushed well within it; past it something is
          // stuck, and the process must still go (src/cli/shutdown-deadline.ts).
          armShutdownDeadline(SHUTDOWN_BOUND_MS, () => {
            say(() => log.info(text.tooLong({ seconds: SHUTDOWN_BOUND_MS / 1000 })));
            process.exit(1);
          });
          say(() => log.info(text.shuttingDown({ signal })));
          close().then(
            () => resolve(0),
            () => resolve(1),
          );
        };
        if (caught !== undefined) stop(caught);
      }),
  };
}
