/** `GET /ca/root-cert`: the CA's root certificate, what Envoy's validation_context must trust. */
import { answer, defineOperation } from '../operation.js';

export const rootCert = defineOperation({
  name: 'rootCert',
  method: 'GET',
  path: '/ca/root-cert',
  summary: "the CA's root certificate (PEM): what Envoy's validation_context must trust",
  input: {},
  output: answer<string>({ type: 'string' }),
  produces: 'application/x-pem-file',
  run: (t) => t.rootCert(),
});
