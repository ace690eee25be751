/**
 * `GET /ui/explain`: what each injection value became in a connected proxy's Envoy, read from
 * its config_dump through the admin address the live page knows (docs/generate.md).
 */
import { EXPLAIN_VALUE_SOURCES, EXPLAINED, type ExplainAnswer } from '../explain-answers.js';
import { answer, defineOperation } from '../operation.js';

export const explain = defineOperation({
  name: 'explain',
  method: 'GET',
  path: '/ui/explain',
  summary:
    "what each injection value (istio-init -p 15001, -z 15006, …) became in a proxy's Envoy; with two, how they differ",
  invalid: 'invalid explain request',
  input: {
    proxy: {
      type: 'strings',
      description:
        "connected proxies' node ids (comma-separated): each Envoy's admin address comes from its node metadata (ENVOY_ADMIN_ADDRESS) or POST /ui/admins",
    },
    admin: {
      type: 'strings',
      description: 'Envoy admin addresses to read directly (comma-separated): 127.0.0.1:15000',
    },
    values: {
      type: 'enum',
      values: EXPLAIN_VALUE_SOURCES,
      description:
        "where the injection values come from: seed (the seed's table, the default) or inject (the real istioctl kube-inject of the lab's Deployment, npm run install-istio)",
    },
  },
  output: answer<ExplainAnswer>(EXPLAINED),
  refusals: {
    '409': 'a proxy whose Envoy admin address the mock does not know',
    '503':
      'an Envoy admin API that does not answer its config_dump, or (values=inject) istioctl that is missing or fails',
  },
  run: (t, { proxy, admin, values }) =>
    t.explain({
      proxies: proxy ?? [],
      admins: admin ?? [],
      ...(values !== undefined && { values }),
    }),
});
