/** What istiod was asked and what it sent, then the import report: one line each. */
import { formatReport } from '../import/report.js';
import type { Generated } from './generate.js';

export function generatedLines(generated: Generated): string[] {
  const { pod, node, sent, proxyless } = generated;
  const as = proxyless ? `a proxyless gRPC application (GENERATOR grpc) of ${node.id}` : node.id;
  const counts = Object.entries(sent)
    .map(([type, n]) => `${type} ${n}`)
    .join(', ');
  return [
    `asked istiod for pod ${pod.namespace}/${pod.name} (${pod.ip}) as ${as}`,
    `istiod sent: ${counts}`,
    ...formatReport(generated.imported.report),
  ];
}
