/**
 * reset: end streams with a gRPC status and message instead of answering, as istiod does
 * when it refuses a proxy. Presets carry istiod's own wordings (pilot/pkg/xds/ads.go and
 * auth.go). Without scope.types, streams in scope end at once when the fault activates, and
 * every new stream ends before its first response; with scope.types, a stream ends when a
 * response of those types is due. `times` limits how many streams it ends.
 */
import type { StreamView } from '../../core/events.js';
import { defineScenario } from '../model.js';
import { GrpcStatus, grpcStatusName } from '../../core/grpc-status.js';

interface Preset {
  code: number;
  message: (stream: StreamView | undefined) => string;
  summary: string;
}

/** The namespace and service account a proxy claims, from its node metadata. */
function claimed(stream: StreamView | undefined): string {
  const meta = stream?.proxy.metadata ?? {};
  const namespace = typeof meta.NAMESPACE === 'string' ? meta.NAMESPACE : 'default';
  const account = typeof meta.SERVICE_ACCOUNT === 'string' ? meta.SERVICE_ACCOUNT : 'default';
  return `${namespace}/${account}`;
}

export const RESET_PRESETS: Record<string, Preset> = {
  'not-ready': {
    code: GrpcStatus.UNAVAILABLE,
    message: () => 'server is not ready to serve discovery information',
    summary: 'istiod before its caches synced',
  },
  authentication: {
    code: GrpcStatus.UNAUTHENTICATED,
    message: () => 'authentication failure',
    summary: 'istiod could not authenticate the client certificate or token',
  },
  authorization: {
    code: GrpcStatus.PERMISSION_DENIED,
    message: (stream) =>
      `authorization failed: no identities ([spiffe://cluster.local/ns/other/sa/other]) matched ${claimed(stream)}`,
    summary: "the proxy's identity does not match the namespace/service account it claims",
  },
  'rate-limit': {
    code: GrpcStatus.RESOURCE_EXHAUSTED,
    message: () => 'request rate limit exceeded: rate: Wait(n=1) would exceed context deadline',
    summary: "istiod's connection rate limit (PILOT_MAX_REQUESTS_PER_SECOND)",
  },
};

/** The preset a validated `preset` parameter names (its schema lists the presets). */
function presetNamed(name: string): Preset {
  const preset = RESET_PRESETS[name];
  if (!preset) throw new Error(`no reset preset named "${name}"`);
  return preset;
}

export const reset = defineScenario({
  name: 'reset',
  summary: "end streams with a gRPC status and message (presets: istiod's own wordings)",
  params: {
    preset: {
      type: 'enum',
      values: Object.keys(RESET_PRESETS),
      default: 'not-ready',
      description: "one of istiod's refusals; code and message override it",
      valueDescriptions: Object.fromEntries(
        Object.entries(RESET_PRESETS).map(([name, p]) => [
          name,
          `${grpcStatusName(p.code)} "${p.message(undefined)}": ${p.summary}`,
        ]),
      ),
    },
    code: { type: 'status', description: "gRPC status (name or number), instead of the preset's" },
    message: { type: 'string', description: "status message, instead of the preset's" },
    times: {
      type: 'integer',
      min: 1,
      description: 'end at most this many streams (default: no limit)',
    },
  },
  scope: 'node-and-type',
  holds: false,
  create: (params, ctx) => {
    const preset = presetNamed(params.preset);
    const code = params.code ?? preset.code;
    const messageFor = (stream: StreamView | undefined) => params.message ?? preset.message(stream);
    const { times } = params;
    let ended = 0;
    const spent = () => times !== undefined && ended >= times;
    const ending = (): void => {
      ended += 1;
      ctx.count('ended');
      if (spent()) ctx.finish(`ended ${ended} stream${ended === 1 ? '' : 's'} (times: ${times})`);
    };
    return {
      activate() {
        if (ctx.scope.types) return;
        for (const stream of ctx.host.openStreams()) {
          if (spent() || !ctx.matchesNode(stream)) continue;
          ctx.host.disconnect({ connectionId: stream.connectionId }, code, messageFor(stream));
          ending();
        }
      },
      decide(query) {
        if (spent()) return undefined;
        ending();
        return { kind: 'end', code, message: messageFor(query.stream) };
      },
    };
  },
});
