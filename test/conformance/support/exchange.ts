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
import { resourceName, shortType, Transcript } from './transcript.js';

/** What a server under test offers the exchange. */
export interface ServerUnderTest {
  label: string;
  /** `host:port` of the plaintext ADS port. */
  xds: string;
  /** `http://host:port` of istiod's debug endpoints. */
  debugUrl: string;
  /** A push of everything, as a config change would start. */
  push(): Promise<void>;
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

  sotw(metadata?: grpc.Metadata): Stream {
    const client = this.client();
    return new Stream(this, client.sotw(metadata), 'sotw');
  }

  delta(metadata?: grpc.Metadata): Stream {
    const client = this.client();
    return new Stream(this, client.delta(metadata), 'delta');
  }

  note(line: string): void {
    this.transcript.add(`# ${line}`);
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

  private client(): AdsTestClient {
    const client = new AdsTestClient(this.server.xds);
    this.clients.push(client);
    return client;
  }
}

/** How long a read waits for a response it expects, and for one it expects not to come. */
const EXPECTED_MS = 3_000;
const SILENCE_MS = 400;

export class Stream {
  private ended: StreamEnd | undefined;

  constructor(
    private readonly x: Exchange,
    private readonly stream: AdsTestStream,
    private readonly protocol: 'sotw' | 'delta',
  ) {
    void stream.done.then((end) => (this.ended = end));
  }

  send(request: ClientRequest | ClientDeltaRequest): void {
    this.x.transcript.add(`→ ${describeRequest(request, this.x)}`);
    this.stream.send(request);
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
    const end = await Promise.race([
      this.stream.done,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), timeoutMs)),
    ]);
    this.x.transcript.end(end);
  }

  close(): void {
    this.stream.close();
  }

  private async take(windowMs: number): Promise<Seen> {
    let response: ClientResponse;
    try {
      response = await this.stream.next(windowMs);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (message.startsWith('stream ended')) {
        this.x.transcript.end(this.ended ?? (await this.stream.done));
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
    this.x.transcript.sotw(response);
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
