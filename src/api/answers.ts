/**
 * The shapes of the control API's answers: each as a TypeScript type and as the JSON Schema the
 * OpenAPI document publishes, side by side so that they are read (and changed) together.
 */
import { describeNack, type NackInfo } from '../core/stream-state.js';
import type { StreamView } from '../core/events.js';
import type { JsonSchema } from '../core/fields.js';
import type { FaultInfo } from '../faults/model.js';
import type { Problem } from '../util/problems.js';

const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;
const int = { type: 'integer', minimum: 0 } as const;

export function object(
  properties: Record<string, JsonSchema>,
  required: string[] = [],
): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: false };
}

export const PROBLEM: JsonSchema = object({ path: str, message: str }, ['path', 'message']);

/**
 * The one refusal body of the control port: every 4xx and 5xx answers `{error, problems}`:
 * one line, and every problem with its field path (empty when there is none to name).
 */
export const REFUSAL: JsonSchema = {
  type: 'object',
  properties: { error: str, problems: { type: 'array', items: PROBLEM } },
  required: ['error', 'problems'],
};

export interface RefusalBody {
  error: string;
  problems: Problem[];
}

const typeNames = { oneOf: [{ type: 'array', items: str, minItems: 1 }, str] };

export const FAULT: JsonSchema = object(
  {
    id: str,
    scenario: str,
    params: { type: 'object' },
    scope: object({ node: str, types: typeNames }),
    trigger: object({
      after: { oneOf: [int, str] },
      afterResponses: int,
      onRequest: object({ node: str, type: str }),
    }),
    state: { type: 'string', enum: ['armed', 'active', 'done'] },
    appliedAt: str,
    activatedAt: str,
    doneAt: str,
    reason: str,
    counts: { type: 'object', additionalProperties: { type: 'integer' } },
  },
  ['id', 'scenario', 'params', 'scope', 'state', 'appliedAt', 'counts'],
);

export const FAULTS: JsonSchema = { type: 'array', items: FAULT };

/** A scenario as the API lists it: name, summary, what it may be scoped to, its parameters. */
export interface ScenarioInfo {
  name: string;
  summary: string;
  scope: string[];
  releasable: boolean;
  /** The JSON Schema of its parameters. */
  params: JsonSchema;
  /** More a scenario publishes (the nack catalogue's `configs`). */
  [more: string]: unknown;
}

export const SCENARIO: JsonSchema = {
  type: 'object',
  properties: {
    name: str,
    summary: str,
    scope: { type: 'array', items: str },
    releasable: bool,
    params: { type: 'object' },
  },
  required: ['name', 'summary', 'scope', 'releasable', 'params'],
};

/** One stream as `GET /control/state` lists it. */
export interface StreamInfo {
  connectionId: string;
  nodeId: string;
  peer: string;
  connectedAt: string;
  protocol: 'sotw' | 'delta';
  /** `CLUSTER_ID` and `ISTIO_VERSION` from its metadata; `node.cluster`. */
  clusterId: string;
  istioVersion: string;
  cluster: string;
  types: {
    typeUrl: string;
    /** `*` (wildcard) or the names asked for. */
    names: '*' | readonly string[];
    /** The version its set has now: what an ACK of "the current version" means. */
    current: string | undefined;
    sent: string | undefined;
    sentNonce: string | undefined;
    sentAt: string | undefined;
    acked: string | undefined;
    ackedAt: string | undefined;
    nack: NackInfo | undefined;
  }[];
  /** A relayed stream's istiod: whether it is connected, and what it last sent of each type. */
  upstream?: { address: string; connected: boolean; received: Record<string, string> };
}

/** A stream in its API shape; `current` gives the version its set serves of a type. */
export function describeStream(
  stream: StreamView,
  current: (typeUrl: string) => string | undefined = () => undefined,
): StreamInfo {
  return {
    connectionId: stream.connectionId,
    nodeId: stream.proxy.nodeId,
    peer: stream.peer,
    connectedAt: stream.connectedAt.toISOString(),
    protocol: stream.protocol,
    clusterId: stream.proxy.clusterId,
    istioVersion: stream.proxy.istioVersion,
    cluster: stream.proxy.cluster,
    types: [...stream.types.values()].map((t) => ({
      typeUrl: t.typeUrl,
      names: t.names,
      current: current(t.typeUrl),
      sent: t.sent?.version,
      sentNonce: t.sent?.nonce,
      sentAt: t.sent?.at.toISOString(),
      acked: t.acked?.version,
      ackedAt: t.acked?.at.toISOString(),
      nack: t.nack ? describeNack(t.nack) : undefined,
    })),
    ...(stream.upstream && {
      upstream: {
        address: stream.upstream.address,
        connected: stream.upstream.connected,
        received: Object.fromEntries(stream.upstream.received),
      },
    }),
  };
}

const NACK_INFO: JsonSchema = object(
  { version: str, nonce: str, keptVersion: str, code: { type: 'integer' }, message: str, at: str },
  ['version', 'nonce', 'keptVersion', 'code', 'message', 'at'],
);

export const STREAM_INFO: JsonSchema = {
  type: 'object',
  properties: {
    connectionId: str,
    nodeId: str,
    peer: str,
    connectedAt: str,
    protocol: { type: 'string', enum: ['sotw', 'delta'] },
    clusterId: str,
    istioVersion: str,
    cluster: str,
    types: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          typeUrl: str,
          names: { oneOf: [{ const: '*' }, { type: 'array', items: str }] },
          current: str,
          sent: str,
          sentNonce: str,
          sentAt: str,
          acked: str,
          ackedAt: str,
          nack: NACK_INFO,
        },
        required: ['typeUrl', 'names'],
      },
    },
    upstream: {
      type: 'object',
      properties: {
        address: str,
        connected: { type: 'boolean' },
        received: { type: 'object', additionalProperties: str },
      },
      required: ['address', 'connected', 'received'],
    },
  },
  required: ['connectionId', 'nodeId', 'peer', 'connectedAt', 'protocol', 'types'],
};

/** What `waitForAck` waits for: a type, and optionally one node and one version. */
export interface AckQuery {
  typeUrl: string;
  /** Only nodes whose id matches this glob (`sidecar~*~orders-*`; without `*` or `?`, exactly). */
  node?: string;
  /** Only this version (default: the current version of the stream's set). */
  version?: string;
  timeoutMs: number;
  /**
   * Only an ACK ends the wait; a NACK of the version is passed over (the test helper's
   * `waitForAck`, whose fault may be removed and the version sent again). The operation
   * answers either.
   */
  ackOnly?: boolean;
}

/** A wait on a fault: until its trigger has fired (`active`) or it is `done`. */
export interface FaultQuery {
  id: string;
  until: 'active' | 'done';
  timeoutMs: number;
}

/** The fault a wait on it found in the state waited for. */
export interface FaultAwaited {
  fault: FaultInfo;
}

/** What a wait for an ACK found: an ACK, or a NACK with Envoy's error detail. */
export interface AckAwaited {
  result: 'ack' | 'nack';
  typeUrl: string;
  version: string;
  nodeId: string;
  connectionId: string;
  /** With `result: nack`: what Envoy said. */
  nack?: NackInfo;
}

export const ACK_AWAITED: JsonSchema = object(
  {
    result: { type: 'string', enum: ['ack', 'nack'] },
    typeUrl: str,
    version: str,
    nodeId: str,
    connectionId: str,
    nack: NACK_INFO,
  },
  ['result', 'typeUrl', 'version', 'nodeId', 'connectionId'],
);

/** A certificate request as the API takes it, unchecked: the CA checks it whole. */
export type CertificateFields = Readonly<Record<string, unknown>>;

export type { IssuedChain } from '../core/identity.js';

export const ISSUED_CHAIN: JsonSchema = object(
  {
    identity: str,
    certChain: { type: 'array', items: str, minItems: 2 },
    rootCert: str,
    privateKey: str,
    notAfter: str,
  },
  ['identity', 'certChain', 'rootCert', 'notAfter'],
);

/** One resource set as `GET /control/resources` shows it. */
export interface SetInfo {
  name: string;
  match?: object;
  version: string;
  /** The version of each type, by istiod's short name. */
  types: Record<string, string>;
  /** Every resource in canonical proto3 JSON, with its `@type`. */
  resources: unknown[];
}

/** What a replacement of the default set changed, and the references Envoy will reject. */
export interface ResourcesChanged {
  version: string;
  /** Short type names (`CDS`, `LDS`) whose version changed. */
  changed: string[];
  warnings: Problem[];
}

/** What a replacement of every set (or a reload of the files) changed, set by set. */
export interface SetsChanged {
  changed: { set: string; changed: string[] }[];
  warnings?: Problem[];
}

const changedBySet = {
  type: 'array',
  items: object({ set: str, changed: { type: 'array', items: str } }, ['set', 'changed']),
};
export const RESOURCES_CHANGED: JsonSchema = object(
  {
    version: str,
    changed: { type: 'array', items: str },
    warnings: { type: 'array', items: PROBLEM },
  },
  ['version', 'changed', 'warnings'],
);
export const SETS_CHANGED: JsonSchema = object(
  { changed: changedBySet, warnings: { type: 'array', items: PROBLEM } },
  ['changed'],
);

const resource = { type: 'object', properties: { '@type': str }, required: ['@type'] };
export const RESOURCES: JsonSchema = { type: 'array', items: resource };
/** Pinned versions: type name (`CDS`, a type URL) → version. */
export const VERSIONS: JsonSchema = { type: 'object', additionalProperties: str };
/** Pinned delta resource versions: type name → resource name → version. */
export const RESOURCE_VERSIONS: JsonSchema = { type: 'object', additionalProperties: VERSIONS };
export const SETS: JsonSchema = {
  type: 'array',
  items: object(
    {
      name: str,
      match: { type: 'object' },
      resources: RESOURCES,
      versions: VERSIONS,
      resourceVersions: RESOURCE_VERSIONS,
    },
    ['resources'],
  ),
};

/** A token request as the API takes it, unchecked: the CA checks it whole. */
export type TokenFields = Readonly<Record<string, unknown>>;

export interface Minted {
  token: string;
  expiresAt: string;
  subject: string;
}

/** An Envoy admin API the live page polls. */
export interface AdminInfo {
  /** `http://127.0.0.1:15000`. */
  admin: string;
  source: string;
  nodeId?: string;
  reachable: boolean;
  error?: string;
}

export const ADMIN: JsonSchema = object(
  { admin: str, source: str, nodeId: str, reachable: bool, error: str },
  ['admin', 'source', 'reachable'],
);

export type { FaultInfo };
export { bool, int, str };
