/**
 * stale: behave like a lagging control plane replica. Each response in scope carries the
 * version pushed before the current one (its old resources), and reuses the nonce of the
 * stream's previous response instead of a fresh one. Envoy does not compare versions or
 * check nonces for freshness: it applies the old set and ACKs it, so its `version_text`
 * goes back. Applying the fault pushes the types in scope so the effect shows at once;
 * removing it sends the current version again.
 */
import { defineScenario } from '../model.js';

export const stale = defineScenario({
  name: 'stale',
  summary: 'answer with the previous version of each type and a reused nonce',
  params: {
    oldVersion: {
      type: 'boolean',
      default: true,
      description: 'send the version pushed before the current one (false: the current one)',
    },
    reuseNonce: {
      type: 'boolean',
      default: true,
      description: "reuse the stream's previous nonce instead of a fresh one",
    },
  },
  scope: 'node-and-type',
  holds: false,
  check: (params) =>
    params.oldVersion === false && params.reuseNonce === false
      ? [
          {
            path: 'params',
            message: 'oldVersion and reuseNonce are both false: nothing would be stale',
          },
        ]
      : [],
  create: (params, ctx) => ({
    activate() {
      ctx.host.resend({ node: ctx.scope.node, types: ctx.scope.types });
    },
    decide(query) {
      const old =
        params.oldVersion === true
          ? (ctx.history.before(query.stream.connectionId, query.typeUrl, query.snapshot.version) ??
            query.snapshot)
          : query.snapshot;
      ctx.count('replaced');
      return { kind: 'replace', snapshot: old, reuseNonce: params.reuseNonce === true };
    },
  }),
});
