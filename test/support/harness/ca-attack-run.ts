/**
 * Runs the rows of ca-attacks.ts against a mock: the CA's answer (status, message, reason
 * trailer), the certificate when one is issued (only ever for the caller's own identity), the
 * counters each answer must move, and the same tokens on an xDS stream of a TLS port.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPrivateKey } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { CaClient } from '../../../src/ca/ca-proto.js';
import { REASON_TRAILER } from '../../../src/ca/ca-service.js';
import { AdsTestClient } from '../../../src/testing/ads-client.js';
import type { TestMockIstiod } from '../../../src/testing/start.js';
import { TLS_FILES } from '../../../src/tls/tls-files.js';
import { CLUSTER_TYPE } from '../../../src/xds/type-urls.js';
import {
  CALLER,
  CALLER_SPIFFE,
  type AttackContext,
  type AttackRequest,
  type CaAttack,
} from './ca-attacks.js';
import { caClient } from '../fixtures/ca.js';
import { sidecarNode } from '../fixtures/nodes.js';
import { GrpcStatus, grpcStatusName } from '../../../src/core/grpc-status.js';

/** The context attacks are built in, for `istiod` (its token key when it has a TLS directory). */
export function attackContext(istiod: TestMockIstiod): AttackContext {
  const dir = istiod.security.dir;
  return {
    mint: (request = {}) => istiod.security.createToken({ ...CALLER, ...request }).token,
    jwtKey: dir ? createPrivateKey(readFileSync(join(dir, TLS_FILES.jwtKey))) : undefined,
  };
}

/** A CA client for `istiod`, over TLS when it serves TLS. */
export function attackClient(istiod: TestMockIstiod): CaClient {
  return caClient(istiod.xdsAddress, istiod.security.tls ? istiod.security.rootCert : undefined);
}

type Answer =
  | { ok: true; chain: string[] }
  | { ok: false; code: grpc.status; details: string; reason: string | undefined };

export function send(
  client: CaClient,
  request: AttackRequest,
  timeoutMs = 20_000,
): Promise<Answer> {
  const metadata = new grpc.Metadata();
  if (request.authorization !== undefined) metadata.set('authorization', request.authorization);
  const { csr, validity_duration, metadata: body } = request;
  return new Promise((resolve) => {
    client.CreateCertificate(
      { csr, validity_duration, metadata: body },
      metadata,
      { deadline: Date.now() + timeoutMs },
      (err, response) => {
        if (!err) return resolve({ ok: true, chain: response?.cert_chain ?? [] });
        const reason = err.metadata?.get(REASON_TRAILER)[0]?.toString();
        resolve({ ok: false, code: err.code, details: err.details, reason });
      },
    );
  });
}

/** The value of a counter line (`name{labels} value`) in a Prometheus text, 0 when absent. */
export function counter(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/** The counters an answer with `outcome` moves by one (istiod's and the mock's). */
export function countersFor(outcome: string | undefined): string[] {
  if (outcome === undefined) return [];
  const base = ['citadel_server_csr_count'];
  if (outcome === 'signed') return [...base, 'citadel_server_success_cert_issuance_count'];
  if (outcome === 'unauthenticated')
    return [...base, 'citadel_server_authentication_failure_count'];
  return [...base, `citadel_server_csr_sign_err_count{error="${outcome}"}`];
}

/**
 * Runs one attack on the CA and returns what was wrong with the answer ('' when it was
 * istiod's). Checks the counters moved as they should when `metrics` is given.
 */
export async function checkCaAttack(
  istiod: TestMockIstiod,
  client: CaClient,
  attack: CaAttack,
  ctx: AttackContext,
): Promise<string> {
  const request = await attack.build(ctx);
  const before = await istiod.metrics.text();
  const answer = await send(client, request);
  const after = await istiod.metrics.text();
  const { expect } = attack;
  const problems: string[] = [];
  if (expect.signed) {
    if (!answer.ok)
      return `expected a certificate, got ${grpc.status[answer.code]} ${answer.details}`;
    const leaf = new X509Certificate(answer.chain[0] ?? '');
    if (leaf.subjectAltName !== `URI:${CALLER_SPIFFE}`) {
      problems.push(`the leaf names ${leaf.subjectAltName}, not only ${CALLER_SPIFFE}`);
    }
  } else if (answer.ok) {
    return `expected ${grpc.status[expect.code]}, got a certificate`;
  } else {
    const got = `${grpc.status[answer.code]} ${JSON.stringify(answer.details)}`;
    const wanted = `${grpc.status[expect.code]} ${typeof expect.details === 'string' ? JSON.stringify(expect.details) : String(expect.details)}`;
    const detailsOk =
      typeof expect.details === 'string'
        ? answer.details === expect.details
        : expect.details.test(answer.details);
    if (answer.code !== expect.code || !detailsOk) problems.push(`expected ${wanted}, got ${got}`);
    const reasonOk = expect.reason
      ? expect.reason.test(answer.reason ?? '')
      : answer.reason === undefined;
    if (!reasonOk)
      problems.push(`reason ${JSON.stringify(answer.reason)} !~ ${String(expect.reason)}`);
  }
  const outcome = expect.signed ? 'signed' : expect.outcome;
  for (const series of countersFor(outcome)) {
    const moved = counter(after, series) - counter(before, series);
    if (moved !== 1) problems.push(`${series} moved by ${moved}, not 1`);
  }
  return problems.join('; ');
}

/** Opens a SotW stream on a TLS mock with the attack's `authorization`; '' when refused as istiod. */
export async function checkXdsTokenAttack(
  istiod: TestMockIstiod,
  attack: CaAttack,
  ctx: AttackContext,
): Promise<string> {
  const { authorization } = await attack.build(ctx);
  const credentials = grpc.credentials.createSsl(Buffer.from(istiod.security.rootCert));
  const client = new AdsTestClient(istiod.xdsAddress, credentials, {
    'grpc.ssl_target_name_override': 'istiod.istio-system.svc',
  });
  const series = 'mock_istiod_auth_refusals_total{service="xds",reason="token"}';
  try {
    const before = counter(await istiod.metrics.text(), series);
    const metadata = new grpc.Metadata();
    if (authorization !== undefined) metadata.set('authorization', authorization);
    const stream = client.sotw(metadata);
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    // A stream let in would wait for ever: give it 10 s, then say so.
    let timer: NodeJS.Timeout | undefined;
    const letIn = new Promise<{ code: grpc.status; details: string }>((resolve) => {
      timer = setTimeout(
        () => resolve({ code: grpc.status.OK, details: 'the stream was let in' }),
        10_000,
      );
    });
    const done = await Promise.race([stream.done, letIn]);
    clearTimeout(timer);
    const problems: string[] = [];
    if (done.code !== GrpcStatus.UNAUTHENTICATED || done.details !== 'authentication failure') {
      problems.push(
        `xDS: expected UNAUTHENTICATED "authentication failure", got ${grpcStatusName(done.code)} ${JSON.stringify(done.details)}`,
      );
    }
    const moved = counter(await istiod.metrics.text(), series) - before;
    if (moved !== 1) problems.push(`xDS: ${series} moved by ${moved}, not 1`);
    return problems.join('; ');
  } finally {
    client.close();
  }
}
