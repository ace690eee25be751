/**
 * A seeded fuzz of the CA's `CreateCertificate`: good tokens and CSRs, the same mutated
 * (characters flipped, cut short, spliced), noise, odd lifetimes and metadata. Every answer
 * must be a certificate for the caller's own identity (only for a good token) or one of
 * istiod's refusals (`UNAUTHENTICATED` "request authenticate failure" or "request
 * impersonation authentication failure", `INVALID_ARGUMENT` "CSR signing error (…)"); never
 * INTERNAL, UNKNOWN or a timeout.
 */
import { X509Certificate } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { CaClient } from '../../../src/ca/ca-proto.js';
import { CALLER_SPIFFE, csrFor, type AttackRequest } from './ca-attacks.js';
import { send } from './ca-attack-run.js';
import { pick } from './fuzz-json.js';

type Rand = () => number;

export interface CaFuzzSeeds {
  /** Tokens the mock signed for the caller. */
  goodToken: string;
  /** Good CSRs (ECDSA, RSA, Ed25519). */
  csrs: string[];
}

export async function caFuzzSeeds(mint: () => string): Promise<CaFuzzSeeds> {
  const algorithms = [
    { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' },
    { name: 'Ed25519' },
    {
      name: 'RSASSA-PKCS1-v1_5',
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: 'SHA-256',
    },
  ] as const;
  const csrs = await Promise.all(algorithms.map((a) => csrFor(a)));
  return { goodToken: mint(), csrs };
}

const PRINTABLE =
  ' !#$%&()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~';

/** `text` with a few characters changed, cut short, or spliced with noise (printable ASCII). */
function mutateText(rand: Rand, text: string): string {
  const chars = [...text];
  switch (Math.floor(rand() * 3)) {
    case 0:
      for (let i = 0; i < 1 + rand() * 4 && chars.length > 0; i++) {
        chars[Math.floor(rand() * chars.length)] = pick(rand, [...PRINTABLE]);
      }
      return chars.join('');
    case 1:
      return text.slice(0, Math.floor(rand() * text.length));
    default:
      return text.slice(0, Math.floor(rand() * text.length)) + noise(rand, 16);
  }
}

function noise(rand: Rand, max: number): string {
  return Array.from({ length: Math.floor(rand() * max) }, () => pick(rand, [...PRINTABLE])).join(
    '',
  );
}

const LIFETIMES = [
  0,
  0,
  0,
  -1,
  1,
  3600,
  7_776_000,
  7_776_001,
  2 ** 31,
  Number.MAX_SAFE_INTEGER,
  -(2 ** 40),
];

/** One request: which parts are good is chosen at random. */
export function caInput(rand: Rand, seeds: CaFuzzSeeds): AttackRequest & { goodToken: boolean } {
  const t = rand();
  const goodToken = t < 0.5;
  const token = goodToken
    ? seeds.goodToken
    : t < 0.85
      ? mutateText(rand, seeds.goodToken)
      : noise(rand, 200);
  const authorization =
    rand() < 0.05 ? undefined : `${rand() < 0.95 ? 'Bearer ' : 'bearer '}${token}`;
  const c = rand();
  const csr =
    c < 0.4
      ? pick(rand, seeds.csrs)
      : c < 0.9
        ? mutateText(rand, pick(rand, seeds.csrs))
        : noise(rand, 2000);
  const m = rand();
  const metadata =
    m < 0.8
      ? undefined
      : {
          fields: {
            [m < 0.9 ? 'ImpersonatedIdentity' : noise(rand, 10)]: { stringValue: noise(rand, 40) },
          },
        };
  return { csr, authorization, validity_duration: pick(rand, LIFETIMES), metadata, goodToken };
}

/** What is wrong with the answer to `input`, or '' when it is istiod's. */
export function judgeCaAnswer(
  input: AttackRequest & { goodToken: boolean },
  answer: Awaited<ReturnType<typeof send>>,
): string {
  if (answer.ok) {
    if (!input.goodToken || input.authorization?.startsWith('Bearer ') !== true) {
      return 'signed for a token that is not good';
    }
    const san = new X509Certificate(answer.chain[0] ?? '').subjectAltName;
    return san === `URI:${CALLER_SPIFFE}` ? '' : `signed for ${san}`;
  }
  const { code, details } = answer;
  if (code === grpc.status.UNAUTHENTICATED) {
    return [
      'request authenticate failure',
      'request impersonation authentication failure',
    ].includes(details)
      ? ''
      : `UNAUTHENTICATED ${JSON.stringify(details)}`;
  }
  if (code === grpc.status.INVALID_ARGUMENT && /^CSR signing error \(.+\)$/.test(details))
    return '';
  return `${grpc.status[code]} ${JSON.stringify(details)}`;
}

export interface CaFuzzReport {
  tried: number;
  byAnswer: Record<string, number>;
  failures: { input: string; problem: string }[];
}

export async function fuzzCa(
  client: CaClient,
  seeds: CaFuzzSeeds,
  rand: Rand,
  count: number,
  deadline = Number.POSITIVE_INFINITY,
  concurrency = 8,
): Promise<CaFuzzReport> {
  const report: CaFuzzReport = { tried: 0, byAnswer: {}, failures: [] };
  while (report.tried < count && Date.now() < deadline) {
    const batch = Array.from({ length: Math.min(concurrency, count - report.tried) }, () =>
      caInput(rand, seeds),
    );
    const answers = await Promise.all(batch.map((input) => send(client, input)));
    for (const [i, answer] of answers.entries()) {
      const input = batch[i] as (typeof batch)[number];
      report.tried += 1;
      const key = answer.ok
        ? 'signed'
        : `${grpc.status[answer.code]} ${answer.details.replace(/\(.*\)/, '(…)')}`;
      report.byAnswer[key] = (report.byAnswer[key] ?? 0) + 1;
      const problem = judgeCaAnswer(input, answer);
      if (problem && report.failures.length < 20) {
        report.failures.push({ input: JSON.stringify(input).slice(0, 400), problem });
      }
    }
  }
  return report;
}
