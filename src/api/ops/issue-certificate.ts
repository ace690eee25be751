/**
 * `POST /ca/certificates`: a workload certificate from the mock's CA, as istiod's CA signs
 * one for that identity (`spiffe://<trust domain>/ns/<namespace>/sa/<service account>`, the
 * same lifetime rules), for a client that cannot speak the CA's gRPC: with `csr`, the chain
 * for the caller's key; without, a key made for it as well.
 */
import { jsonField } from '../../core/fields.js';
import { ISSUED_CHAIN, type CertificateFields, type IssuedChain } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const issueCertificate = defineOperation({
  name: 'issueCertificate',
  method: 'POST',
  path: '/ca/certificates',
  summary:
    'a workload certificate chain from the CA: {namespace, serviceAccount, csr (PEM, optional), ttlSeconds}',
  invalid: 'invalid certificate request',
  // The CA checks the request whole; the fields here document it.
  input: {
    namespace: { type: 'string', description: 'the namespace of the identity (default default)' },
    serviceAccount: { type: 'string', description: 'its service account (default default)' },
    csr: jsonField(
      'string',
      'a PEM certificate signing request; without one the mock makes the key',
    ),
    ttlSeconds: {
      type: 'integer',
      min: 1,
      description: "the certificate's lifetime in seconds (default: the CA's, 24h)",
    },
  },
  keepUnknown: true,
  success: 201,
  refusals: { '409': 'the CA cannot sign (its TLS directory holds no ca-key.pem)' },
  output: answer<IssuedChain>(ISSUED_CHAIN),
  cli: {
    verb: ['issue-cert'],
    summary: "a workload certificate from a running mock's CA (chain and key, PEM)",
    help:
      'Asks the CA of a running mock for a certificate for the identity\n' +
      'spiffe://<trust domain>/ns/<namespace>/sa/<service account>, with a key made for it,\n' +
      'and prints the chain (leaf, then root) and the key as PEM. -o json prints the answer\n' +
      '(identity, certChain, rootCert, privateKey, notAfter).',
    text: (a) => `${a.certChain.join('')}${a.privateKey ?? ''}`.trimEnd(),
  },
  run: (t, input) => t.issueCertificate(input as CertificateFields),
});
