/**
 * One scripted exchange against one server: a case opens streams, sends requests and reads
 * what comes back, and every step lands in the exchange's transcript. The same script runs
 * against istiod's own server and against the mock; the two transcripts are compared.
 */
import * as grpc from '@grpc/grpc-js';
import {
  AdsTestClient,
  type AdsTestStream,
  type ClientDeltaRequest,
  type ClientDeltaResponse,
  type ClientRequest,
  type ClientResponse,
  type StreamEnd,
} from '../../../src/testing/ads-client.js';
import { TLS_CHANNEL_OPTIONS, type SuiteTls } from './identity.js';
import { resourceName, shortType, Transcript } from './transcript.js';

/** What a server under test offers the exchange. */
export interface ServerUnderTest {
  label: string;
  /** `host:port` of the plaintext ADS port. */
  xds: string;
  /** `http://host:port` of istiod's debug endpoints. */
  debugUrl: string;
  /** `host:port` of the TLS ADS port (istiod's 15012), verifying client certificates. */
  tlsXds: string;
  /** The suite's CA, which both servers' TLS ports trust. */
  tls: SuiteTls;
  /** A push of everything, as a config change would start. */
  push(): Promise<void>;
  /** The server's log messages so far. */
  log(): string[];
}

/** How a case's stream connects: plaintext by default. */
export interface StreamOptions {
  metadata?: grpc.Metadata;
  /** Over TLS, with a client certificate carrying this SPIFFE id. */
  identity?: string;
  /** Over TLS without a client certificate (implied by `identity`). */
  tls?: boolean;
  /**
   * Over TLS, with this pod's service account token in `authorization: Bearer …`, signed with
   * the key the mock trusts. istiod-ref has no token authenticator (only istiod's
   * ClientCertAuthenticator), so istiod ignores it.
   */
  token?: { namespace: string; serviceAccount: string };
  /** Plaintext, every request gzip-compressed (`grpc-encoding: gzip`), as grpc-js sends it. */
  gzip?: boolean;
}

export interface NodeOptions {
  /** The whole node id, when a case is about the id itself. */
  id?: string;
  type?: string;
  ip?: string;
  namespace?: string;
  /** Replaces the default metadata entirely when given with `replaceMetadata`. */
  metadata?: Record<string, unknown>;
  replaceMetadata?: boolean;
}

export interface Node {
  id: string;
  cluster?: string;
  metadata?: Record<string, unknown>;
}

/** A response as a case needs it to build the next request. */
export interface Seen {
  silent: boolean;
  type: string;
  version: string;
  nonce: string;
  names: string[];
}

const SILENT: Seen = { silent: true, type: '', version: '', nonce: '', names: [] };

export class Exchange {
  readonly transcript = new Transcript();
  private readonly clients: AdsTestClient[] = [];
  private readonly nonces = new Map<string, string>();
  private responses = 0;

  constructor(
    readonly server: ServerUnderTest,
    /** The case's own pod, known to istiod; concurrent cases are told apart by it. */
    readonly pod: string,
    readonly podIp: string,
  ) {}

  /** The proxy's id as istiod's debug views show it: `<pod>.<namespace>`. */
  get proxyId(): string {
    return `${this.pod}.default`;
  }

  node(options: NodeOptions = {}): Node {
    const type = options.type ?? 'sidecar';
    const ip = options.ip ?? this.podIp;
    const namespace = options.namespace ?? 'default';
    const id =
      options.id ?? `${type}~${ip}~${this.pod}.${namespace}~${namespace}.svc.cluster.local`;
    const defaults = {
      NAMESPACE: namespace,
      CLUSTER_ID: 'Kubernetes',
      ISTIO_VERSION: '1.29.0',
      INSTANCE_IPS: ip,
      POD_NAME: this.pod,
      PROXY_CONFIG: {},
    };
    const metadata = options.replaceMetadata
      ? (options.metadata ?? {})
      : { ...defaults, ...options.metadata };
    return { id, metadata };
  }

  /** A state-of-the-world stream: plaintext, or over TLS with `{ identity }` or `{ tls }`. */
  sotw(options?: grpc.Metadata | StreamOptions): Stream {
    return this.open('sotw', options);
  }

  delta(options?: grpc.Metadata | StreamOptions): Stream {
    return this.open('delta', options);
  }

  /**
   * The server's log lines about this case's proxy that match `pattern`, as messages (istiod's
   * after its timestamp, level and scope), with the connection id written `<conId>`, the proxy
   * id `<proxy>`, and sizes `size:<n>` (the mock serves istiod's resources without Istio's
   * own filters, so sizes differ): istiod's wording is part of what the mock promises.
   */
  log(pattern: RegExp): void {
    const conId = new RegExp(`${escapeRegExp(this.proxyId)}-\\d+`, 'g');
    const proxy = new RegExp(`node:${escapeRegExp(this.proxyId)}\\b`, 'g');
    const mine = this.server
      .log()
      .map((line) => line.slice(line.lastIndexOf('\t') + 1))
      .filter((line) => line.includes(this.proxyId) && pattern.test(line))
      .map((line) =>
        line
          .replace(conId, '<conId>')
          .replace(proxy, 'node:<proxy>')
          .replace(/size:[\d.]+[kMGTPE]?B/g, 'size:<n>')
          // istiod's own XDS cache's hits; the mock has no such cache to account for.
          .replace(/ cached:\d+\/\d+/, ''),
      );
    if (mine.length === 0) this.transcript.add('log: (nothing)');
    for (const line of mine) this.transcript.add(`log: ${line}`);
  }

  /** Waits without reading, recording nothing: lets a server act before its log is read. */
  async settle(ms = 400): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** What istiod's `/debug/syncz` says of this case's proxy, type by type. */
  async syncz(): Promise<void> {
    const res = await fetch(`${this.server.debugUrl}/debug/syncz`);
    const all = (await res.json()) as SynczEntry[] | null;
    const mine = (all ?? []).filter((e) => e.proxy === this.proxyId);
    if (mine.length === 0) {
      this.transcript.add('syncz: (not listed)');
      return;
    }
    for (const entry of mine) this.transcript.add(`syncz: ${synczLine(entry, this)}`);
  }

  async push(): Promise<void> {
    await this.server.push();
    this.transcript.add('⟳ push');
  }

  /** @internal A label for a nonce this exchange has seen: `R<n>` for the n-th response's. */
  nonceLabel(nonce: string | undefined): string {
    if (nonce === undefined) return 'none';
    if (nonce === '') return 'empty';
    return this.nonces.get(nonce) ?? JSON.stringify(nonce);
  }

  /** @internal */
  recordResponse(nonce: string): string {
    this.responses += 1;
    const label = `R${this.responses}`;
    this.nonces.set(nonce, label);
    return label;
  }

  close(): void {
    for (const client of this.clients) client.close();
  }

  private open(protocol: 'sotw' | 'delta', options?: grpc.Metadata | StreamOptions): Stream {
    const given: StreamOptions =
      options instanceof grpc.Metadata ? { metadata: options } : (options ?? {});
    const { identity, token } = given;
    const tls = given.tls === true || token !== undefined;
    let metadata = given.metadata;
    if (token) {
      metadata = metadata?.clone() ?? new grpc.Metadata();
      const jwt = this.server.tls.token(token.namespace, token.serviceAccount);
      metadata.set('authorization', `Bearer ${jwt}`);
    }
    const start = (client: AdsTestClient) =>
      protocol === 'sotw' ? client.sotw(metadata) : client.delta(metadata);
    if (given.gzip)
      return new Stream(this, start(this.client(this.server.xds, undefined, GZIP)), protocol);
    if (identity === undefined && !tls) return new Stream(this, start(this.client()), protocol);
    const opening = this.server.tls
      .credentials(identity)
      .then((credentials) => start(this.client(this.server.tlsXds, credentials)));
    return new Stream(this, opening, protocol);
  }

  private client(
    address = this.server.xds,
    credentials = grpc.credentials.createInsecure(),
    options: grpc.ChannelOptions = address === this.server.xds ? {} : TLS_CHANNEL_OPTIONS,
  ): AdsTestClient {
    const client = new AdsTestClient(address, credentials, options);
    this.clients.push(client);
    return client;
  }
}

/** grpc-js's channel option for compressing every request: gzip is algorithm 2. */
const GZIP: grpc.ChannelOptions = { 'grpc.default_compression_algorithm': 2 };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** How long a read waits for a response it expects, and for one it expects not to come. */
const EXPECTED_MS = 3_000;
const SILENCE_MS = 400;

export class Stream {
  private ended: StreamEnd | undefined;
  /** The stream once open: at once in plaintext; a TLS stream waits for its certificate. */
  private readonly opened: Promise<AdsTestStream>;

  constructor(
    private readonly x: Exchange,
    stream: AdsTestStream | Promise<AdsTestStream>,
    private readonly protocol: 'sotw' | 'delta',
  ) {
    this.opened = Promise.resolve(stream);
    void this.opened.then((s) => s.done.then((end) => (this.ended = end)));
  }

  send(request: ClientRequest | ClientDeltaRequest): void {
    this.x.transcript.add(`→ ${describeRequest(request, this.x)}`);
    // Sends keep their order: each waits on the same promise, settled once.
    void this.opened.then((s) => s.send(request));
  }

  /** The next response, waited for up to 3 s; a silence is recorded as one. */
  read(): Promise<Seen> {
    return this.take(EXPECTED_MS);
  }

  /** The next response if one comes within 400 ms: for a step where istiod stays silent. */
  silent(): Promise<Seen> {
    return this.take(SILENCE_MS);
  }

  /** How the stream ended, waited for up to 3 s (or that it is still open). */
  async end(timeoutMs = EXPECTED_MS): Promise<void> {
    const stream = await this.opened;
    let timer: NodeJS.Timeout | undefined;
    const end = await Promise.race([
      stream.done,
      new Promise<undefined>(
        (resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)),
      ),
    ]);
    clearTimeout(timer);
    this.x.transcript.end(end);
  }

  close(): void {
    void this.opened.then((s) => s.close());
  }

  private async take(windowMs: number): Promise<Seen> {
    const stream = await this.opened;
    let response: ClientResponse;
    try {
      response = await stream.next(windowMs);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (message.startsWith('stream ended')) {
        this.x.transcript.end(this.ended ?? (await stream.done));
        return SILENT;
      }
      this.x.transcript.silent();
      return SILENT;
    }
    const label = this.x.recordResponse(response.nonce);
    if (this.protocol === 'delta') {
      const delta = response as unknown as ClientDeltaResponse;
      this.x.transcript.delta(delta);
      this.x.transcript.lines[this.x.transcript.lines.length - 1] += ` (${label})`;
      return {
        silent: false,
        type: delta.type_url,
        version: delta.system_version_info,
        nonce: delta.nonce,
        names: delta.resources.map((r) => r.name),
      };
    }
    if (response.type_url.startsWith('istio.io/debug'))
      this.x.transcript.debug(response, this.x.pod);
    else this.x.transcript.sotw(response);
    this.x.transcript.lines[this.x.transcript.lines.length - 1] += ` (${label})`;
    return {
      silent: false,
      type: response.type_url,
      version: response.version_info,
      nonce: response.nonce,
      names: response.resources.map((r) => resourceName(r.value)),
    };
  }
}

function describeRequest(request: ClientRequest | ClientDeltaRequest, x: Exchange): string {
  const parts = [shortType(request.type_url)];
  if (request.node) parts.push(`node ${request.node.id === '' ? '(empty id)' : 'set'}`);
  if ('resource_names' in request && request.resource_names)
    parts.push(`names [${request.resource_names.join(', ')}]`);
  if ('resource_names_subscribe' in request && request.resource_names_subscribe)
    parts.push(`subscribe [${request.resource_names_subscribe.join(', ')}]`);
  if ('resource_names_unsubscribe' in request && request.resource_names_unsubscribe)
    parts.push(`unsubscribe [${request.resource_names_unsubscribe.join(', ')}]`);
  if ('initial_resource_versions' in request && request.initial_resource_versions)
    parts.push(`initial [${Object.keys(request.initial_resource_versions).join(', ')}]`);
  if ('version_info' in request && request.version_info !== undefined)
    parts.push(`version ${x.transcript.knownVersion(request.version_info)}`);
  if (request.response_nonce !== undefined)
    parts.push(`nonce ${x.nonceLabel(request.response_nonce)}`);
  if (request.error_detail) parts.push(`error ${request.error_detail.code}`);
  return parts.join(' ');
}

interface SynczEntry {
  proxy: string;
  proxy_type?: string;
  resources?: Record<string, { sent?: string; acked?: string; lastError?: string }>;
  [field: string]: unknown;
}

/**
 * A syncz entry as the nonces this exchange saw: per type, which response was sent and which
 * acknowledged, and the last error a NACK carried (what istioctl's proxy-status reads).
 */
function synczLine(entry: SynczEntry, x: Exchange): string {
  const parts: string[] = [`type ${String(entry.proxy_type ?? '')}`];
  const resources = entry.resources ?? {};
  for (const typeUrl of Object.keys(resources).sort()) {
    const r = resources[typeUrl]!;
    let part = `${shortType(typeUrl)} sent ${x.nonceLabel(r.sent)} acked ${x.nonceLabel(r.acked)}`;
    if (r.lastError) part += ` lastError ${JSON.stringify(r.lastError)}`;
    parts.push(part);
  }
  return parts.join(', ');
}
