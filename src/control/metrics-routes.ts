/**
 * `GET /metrics`: the server's Prometheus metrics (istiod's `pilot_*` names and the mock's
 * own `mock_istiod_*`), in the text exposition format.
 */
import type { Route } from './router.js';
import type { HasMetrics } from './target.js';

export function metricsRoutes(target: HasMetrics): Route[] {
  return [
    {
      method: 'GET',
      path: '/metrics',
      summary: 'Prometheus metrics (pilot_xds, pilot_xds_pushes, pilot_total_xds_rejects, …)',
      handle: async () => ({
        status: 200,
        body: await target.metrics.text(),
        contentType: target.metrics.contentType,
      }),
    },
  ];
}
