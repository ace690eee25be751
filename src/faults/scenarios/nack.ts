/**
 * nack: serve a configuration Envoy must reject (one of the named configs of the
 * catalogue), then follow a policy once the proxy NACKs it:
 *
 * - `stop` (istiod's behaviour): send nothing more of that type to that proxy while the
 *   fault is applied; it keeps running its last good configuration;
 * - `resend`: send the bad configuration again every `interval` (each one NACKed again);
 * - `rollback`: send the set the proxy last ACKed, so both sides agree again.
 *
 * The bad response goes out through the policy's `replace` decision: the snapshot store
 * keeps the real resource set, so other proxies (out of scope) and every other type are
 * untouched, and removing the fault simply resends the current version (the store was never
 * changed, so there is nothing to restore).
 */
import type { RequestOutcome } from '../../core/stream-state.js';
import type { StreamView } from '../../core/events.js';
import type { ResponseDecision, ResponseQuery } from '../../core/policy.js';
import { packResourceSet } from '../../snapshot/resource-set.js';
import type { TypeSnapshot } from '../../core/snapshot.js';
import { formatProblems } from '../../util/problems.js';
import { defineScenario, type FaultContext } from '../model.js';
import { nackConfigNamed, NACK_CATALOGUE, type NackConfig } from '../nack-catalogue.js';
import type { FieldSchemas, FieldValues } from '../../core/fields.js';
import { displayTypeName } from '../../core/types/registry.js';

const POLICIES = ['stop', 'resend', 'rollback'] as const;
type Policy = (typeof POLICIES)[number];

/** Where one stream is: not sent yet, bad config sent, NACKed and stopped, rolled back. */
type Phase = 'fresh' | 'sent' | 'stopped' | 'rolling-back' | 'rolled-back';

interface StreamState {
  phase: Phase;
  badVersion?: string;
}

const HOLD: ResponseDecision = Object.freeze({ kind: 'hold' });

function badSuffixOf(config: NackConfig): string {
  return `+nack.${config.name}`;
}

/** The current resources of the type plus the bad ones (replacing any of the same name). */
function badSnapshot(ctx: FaultContext, config: NackConfig, good: TypeSnapshot): TypeSnapshot {
  const packed = packResourceSet(config.build(good.resources));
  if (!packed.ok)
    throw new Error(`nack config ${config.name} is invalid: ${formatProblems(packed.problems)}`);
  const resources = new Map(good.resources);
  for (const [name, resource] of packed.value.get(config.typeUrl) ?? [])
    resources.set(name, resource);
  return ctx.makeSnapshot(config.typeUrl, good.version + badSuffixOf(config), resources);
}

const NACK_PARAMS = {
  config: {
    type: 'enum',
    values: NACK_CATALOGUE.map((c) => c.name),
    required: true,
    description: 'which invalid configuration to serve',
    valueDescriptions: Object.fromEntries(
      NACK_CATALOGUE.map((c) => [c.name, `${displayTypeName(c.typeUrl)}: ${c.summary}`]),
    ),
  },
  after: {
    type: 'enum',
    values: POLICIES,
    default: 'stop',
    description: 'after the NACK: stop (send no more), resend (again every interval), rollback',
  },
  interval: { type: 'duration', default: 1_000, description: 'with after: resend, how often' },
} as const satisfies FieldSchemas;

type NackParams = FieldValues<typeof NACK_PARAMS>;

export const nack = defineScenario({
  name: 'nack',
  summary: 'serve a config Envoy must reject, then stop, resend it, or roll back',
  params: NACK_PARAMS,
  scope: 'node',
  holds: false,
  describe: () => ({
    configs: NACK_CATALOGUE.map((c) => ({
      name: c.name,
      type: displayTypeName(c.typeUrl),
      summary: c.summary,
      envoyError: c.envoyError,
    })),
  }),
  create: (params, ctx) => {
    const fault = new NackFault(ctx, nackConfigNamed(params.config), params);
    return { activate: () => fault.activate(), decide: (query) => fault.decide(query) };
  },
});

/** One nack fault: per stream, where it is in the story (bad config sent, NACKed, …). */
class NackFault {
  private readonly streams = new Map<string, StreamState>();
  private readonly cache = new Map<string, TypeSnapshot>();
  private readonly policy: Policy;
  private readonly interval: number;
  /** What ends the version of every bad snapshot this fault makes (`badSnapshot`). */
  private readonly badSuffix: string;

  constructor(
    private readonly ctx: FaultContext,
    private readonly config: NackConfig,
    params: NackParams,
  ) {
    this.policy = params.after;
    this.interval = params.interval;
    this.badSuffix = badSuffixOf(config);
    ctx.on('stream-close', (stream) => this.streams.delete(stream.connectionId));
    ctx.on('request', (stream, outcome) => this.onRequest(stream, outcome));
  }

  activate(): void {
    this.ctx.host.resend({ node: this.ctx.scope.node, types: [this.config.typeUrl] });
  }

  decide(query: ResponseQuery): ResponseDecision | undefined {
    if (query.typeUrl !== this.config.typeUrl) return undefined;
    const state = this.stateOf(query.stream);
    switch (state.phase) {
      case 'stopped':
        this.ctx.count('held');
        return HOLD;
      case 'rolled-back':
        return undefined;
      case 'rolling-back': {
        state.phase = 'rolled-back';
        const acked = query.stream.types.get(this.config.typeUrl)?.acked?.version;
        this.ctx.count('rolledBack');
        const { connectionId } = query.stream;
        const last =
          this.ctx.history.find(connectionId, this.config.typeUrl, acked) ?? query.snapshot;
        return { kind: 'replace', snapshot: last };
      }
      default: {
        const snapshot = this.bad(query.snapshot);
        state.phase = 'sent';
        state.badVersion = snapshot.version;
        this.ctx.count('sent');
        return { kind: 'replace', snapshot };
      }
    }
  }

  private onRequest(stream: StreamView, outcome: RequestOutcome): void {
    const state = this.streams.get(stream.connectionId);
    if (!state || state.phase === 'fresh' || !('typeUrl' in outcome)) return;
    if (outcome.typeUrl !== this.config.typeUrl) return;
    if (outcome.kind === 'ack' && state.phase === 'sent' && outcome.version === state.badVersion) {
      this.ctx.count('accepted');
      this.ctx.log.warn(
        { config: this.config.name, conId: stream.connectionId },
        'nack: the proxy ACKed a config it should reject',
      );
      return;
    }
    // A push can go out bad before the proxy's NACK of the last one arrives: every NACK of a
    // bad version counts, and the first one moves the stream on.
    if (outcome.kind !== 'nack' || !outcome.nack.version.endsWith(this.badSuffix)) return;
    this.ctx.count('rejected');
    if (state.phase !== 'sent') return;
    if (this.policy === 'stop') state.phase = 'stopped';
    else if (this.policy === 'rollback') {
      state.phase = 'rolling-back';
      this.resendTo(stream);
    } else if (outcome.nack.version === state.badVersion) {
      // Only the latest bad version's NACK: an earlier one's would start a second resend chain.
      this.ctx.setTimeout(() => this.resendTo(stream), this.interval);
    }
  }

  private resendTo(stream: StreamView): void {
    this.ctx.host.resend({ connectionId: stream.connectionId, types: [this.config.typeUrl] });
  }

  private stateOf(stream: StreamView): StreamState {
    let state = this.streams.get(stream.connectionId);
    if (!state) this.streams.set(stream.connectionId, (state = { phase: 'fresh' }));
    return state;
  }

  /** The bad snapshot for a good one, built once per good version. */
  private bad(good: TypeSnapshot): TypeSnapshot {
    let snapshot = this.cache.get(good.version);
    if (!snapshot) {
      this.cache.clear();
      this.cache.set(good.version, (snapshot = badSnapshot(this.ctx, this.config, good)));
    }
    return snapshot;
  }
}
