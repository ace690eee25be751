/** `POST /control/disconnect`: end streams with a gRPC status. */
import { grpcStatusName } from '../../core/grpc-status.js';
import { int, object, str } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const disconnect = defineOperation({
  name: 'disconnect',
  method: 'POST',
  path: '/control/disconnect',
  summary: 'end streams: {"node": glob, "code": "UNAVAILABLE", "message": "…"}, all optional',
  invalid: 'invalid disconnect',
  input: {
    node: {
      type: 'glob',
      description: 'only the streams whose node id matches, e.g. "sidecar~*~orders-*"',
    },
    code: { type: 'status', description: 'gRPC status name or number (default UNAVAILABLE)' },
    message: { type: 'string', description: 'the status message' },
  },
  output: answer<{ disconnected: number; code: string }>(
    object({ disconnected: int, code: str }, ['disconnected', 'code']),
  ),
  cli: {
    summary: 'end streams with a gRPC status (a running mock)',
    help: 'Ends the chosen streams with a gRPC status; Envoy reconnects after its back-off.',
    text: (a) => `disconnected ${a.disconnected} stream(s) with ${a.code}`,
  },
  timeline: true,
  run: (t, { node, code, message }) => ({
    disconnected: t.disconnect(node === undefined ? {} : { node }, code, message),
    code: grpcStatusName(code ?? 14),
  }),
});
