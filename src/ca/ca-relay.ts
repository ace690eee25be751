/**
 * `--relay-ca`: the CA service handed on to the upstream istiod's, so that a pod relayed to
 * the mesh's istiod also gets its workload certificate from the mesh's CA. The caller's
 * request goes up as it came, with its own credentials (its service account token and
 * cluster), since istiod signs for the identity the token proves; istiod's answer or refusal
 * comes back as istiod gave it.
 */
import type * as grpc from '@grpc/grpc-js';
import { grpcJs } from '../util/grpc-js.js';
import {
  createCaClient,
  type IstioCertificateRequest,
  type IstioCertificateResponse,
} from './ca-proto.js';

/** Signs a request upstream; rejects with istiod's `ServiceError`. */
export interface CaRelay {
  readonly address: string;
  createCertificate(
    request: IstioCertificateRequest,
    callerMetadata: grpc.Metadata,
  ): Promise<IstioCertificateResponse>;
  close(): void;
}

/** The caller's headers istiod's CA reads: its token, and the cluster it names. */
const PASSED_HEADERS = ['authorization', 'clusterid'];

/** How long one CSR may take upstream, as pilot-agent's own CA client allows. */
const CSR_DEADLINE_MS = 30_000;

export function createCaRelay(
  address: string,
  credentials: grpc.ChannelCredentials,
  options: grpc.ChannelOptions,
): CaRelay {
  const client = createCaClient(address, credentials, options);
  return {
    address,
    createCertificate: (request, callerMetadata) =>
      new Promise((resolve, reject) => {
        const metadata = new (grpcJs().Metadata)();
        for (const header of PASSED_HEADERS) {
          for (const value of callerMetadata.get(header)) metadata.add(header, value);
        }
        client.CreateCertificate(
          request,
          metadata,
          { deadline: Date.now() + CSR_DEADLINE_MS },
          (err, response) => {
            if (err) reject(err);
            else resolve(response ?? { cert_chain: [] });
          },
        );
      }),
    close: () => client.close(),
  };
}
