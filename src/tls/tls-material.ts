/**
 * What a mock istiod needs for TLS and its CA: a root certificate (the trust anchor written to
 * `root-cert.pem` for Envoy's `validation_context`), a serving certificate and key, the CA
 * key that signs workload certificates, and the key that signs test tokens. Made in memory,
 * or kept in a directory with Istio's file names so that Envoy bootstraps and minted tokens
 * stay valid across restarts: whatever is missing is made and written, whatever is there is
 * checked and used (so a user can bring their own CA, or their own serving certificate).
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Problem, Result } from '../util/problems.js';
import { foreignTlsDirProblems } from './dir-owner.js';
import { loadCa, loadJwtKey, loadServing, TLS_FILES, type TlsFileName } from './tls-files.js';

import {
  chainOf,
  createRootCa,
  issueServingCertificate,
  type CertificateAuthority,
} from './pki.js';
import { CACERTS_FILES, loadPluginCa } from './plugin-ca.js';

/** What the CA service needs, TLS or not. */
export interface CaMaterial {
  rootCertPem: string;
  /** The CA signing workload certificates; undefined when the directory has no `ca-key.pem`. */
  ca: CertificateAuthority | undefined;
  jwtKey: KeyObject;
}

export interface TlsMaterial extends CaMaterial {
  /** Where the files are; undefined when everything lives in memory. */
  dir: string | undefined;
  /** The serving certificate, leaf first, and its key. */
  certChainPem: string;
  keyPem: string;
  /** One line per thing worth logging: files written, certificates close to useless. */
  notes: string[];
}

export interface TlsMaterialOptions {
  dir: string | undefined;
  /** Names on a serving certificate the mock makes (DNS names or IP addresses). */
  hosts: readonly string[];
  /** `O=` of a root the mock makes (Istio: the trust domain). */
  trustDomain: string;
  /** A plug-in CA's directory (istiod's `cacerts`): sign with it, under its root. */
  cacerts?: string | undefined;
  now?: Date;
}

export function generateJwtKey(): KeyObject {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
}

export function jwtKeyToPem(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** A CA and a token key in memory: all a mock without TLS needs. */
export async function createCaMaterial(trustDomain: string, now = new Date()) {
  const ca = await createRootCa(trustDomain, now);
  return { rootCertPem: ca.certPem, ca, jwtKey: generateJwtKey() };
}

/** Makes everything in memory, or loads and completes the directory `options.dir`. */
export async function prepareTlsMaterial(
  options: TlsMaterialOptions,
): Promise<Result<TlsMaterial>> {
  const now = options.now ?? new Date();
  if (options.dir === undefined) {
    let material: CaMaterial & { ca: CertificateAuthority };
    if (options.cacerts !== undefined) {
      const plugin = await loadPluginCa(options.cacerts);
      if (!plugin.ok) return plugin;
      material = { ...plugin.value, jwtKey: generateJwtKey() };
    } else material = await createCaMaterial(options.trustDomain, now);
    const serving = await issueServingCertificate(material.ca, options.hosts, now);
    const value = { ...material, dir: undefined, notes: [] };
    const certChainPem = servingChain(material.ca, serving.certPem);
    return { ok: true, value: { ...value, certChainPem, keyPem: serving.keyPem } };
  }
  return fromDirectory(options.dir, options, now);
}

/** Reading and writing one TLS directory, collecting problems and notes as it goes. */
interface DirContext {
  path: (name: TlsFileName) => string;
  read: (name: TlsFileName) => string | undefined;
  write: (name: TlsFileName, text: string, secret: boolean) => void;
  problems: Problem[];
  notes: string[];
}

function dirContext(dir: string): DirContext {
  const path = (name: TlsFileName) => join(dir, TLS_FILES[name]);
  const notes: string[] = [];
  return {
    path,
    read: (name) => (existsSync(path(name)) ? readFileSync(path(name), 'utf8') : undefined),
    write: (name, text, secret) => {
      // Keys are readable by the user only; certificates by anyone (they are public).
      writeFileSync(path(name), text, { mode: secret ? 0o600 : 0o644 });
      notes.push(`wrote ${path(name)}`);
    },
    problems: [],
    notes,
  };
}

async function fromDirectory(
  dir: string,
  options: TlsMaterialOptions,
  now: Date,
): Promise<Result<TlsMaterial>> {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      problems: [{ path: dir, message: `cannot create the directory (${reason})` }],
    };
  }
  // Before any key in it is read: one another user could have filled is refused.
  const foreign = foreignTlsDirProblems(dir, Object.values(TLS_FILES));
  if (foreign.length > 0) return { ok: false, problems: foreign };
  const ctx = dirContext(dir);
  const root =
    options.cacerts !== undefined
      ? await rootFromCacerts(ctx, options.cacerts)
      : await loadOrMakeRoot(ctx, options.trustDomain, now);
  if (!root) return { ok: false, problems: ctx.problems };
  const serving = await loadOrIssueServing(ctx, root.rootCertPem, root.ca, options.hosts, now);
  const jwtKey = loadOrMakeJwtKey(ctx);
  if (ctx.problems.length > 0 || !serving || !jwtKey) return { ok: false, problems: ctx.problems };
  const { rootCertPem, ca } = root;
  return { ok: true, value: { dir, rootCertPem, ...serving, ca, jwtKey, notes: ctx.notes } };
}

/** The root certificate and, when its key is there, the CA; made when the directory is empty. */
async function loadOrMakeRoot(ctx: DirContext, trustDomain: string, now: Date) {
  const rootCertPem = ctx.read('rootCert');
  if (rootCertPem !== undefined) {
    const ca = await loadCa(rootCertPem, ctx.read('caKey'), ctx.path, ctx.problems, ctx.notes);
    return { rootCertPem, ca };
  }
  const strays = (['certChain', 'key', 'caKey'] as const).filter((f) => ctx.read(f) !== undefined);
  if (strays.length > 0) {
    const names = strays.map((f) => TLS_FILES[f]).join(', ');
    ctx.problems.push({
      path: ctx.path('rootCert'),
      message: `is missing while ${names} ${strays.length === 1 ? 'is' : 'are'} there: add the root certificate, or empty the directory to have new files made`,
    });
    return undefined;
  }
  const ca = await createRootCa(trustDomain, now);
  ctx.write('rootCert', ca.certPem, false);
  ctx.write('caKey', ca.keyPem, true);
  return { rootCertPem: ca.certPem, ca };
}

/**
 * A plug-in CA's root, written into the directory for bootstraps to point at; a directory
 * holding another root is refused rather than mixed with it.
 */
async function rootFromCacerts(ctx: DirContext, cacerts: string) {
  const plugin = await loadPluginCa(cacerts);
  if (!plugin.ok) {
    ctx.problems.push(...plugin.problems);
    return undefined;
  }
  const { rootCertPem, ca } = plugin.value;
  const present = ctx.read('rootCert');
  if (present === undefined) ctx.write('rootCert', rootCertPem, false);
  else if (present.trim() !== rootCertPem.trim()) {
    ctx.problems.push({
      path: ctx.path('rootCert'),
      message: `is not the root of ${join(cacerts, CACERTS_FILES.rootCert)}: give --cacerts a TLS directory of its own, or empty this one`,
    });
    return undefined;
  }
  return { rootCertPem, ca };
}

/** A serving certificate, followed by its CA's chain when that is not the root itself. */
function servingChain(ca: CertificateAuthority, certPem: string): string {
  return ca.chainPem === undefined ? certPem : chainOf(ca, certPem).join('');
}

/** The serving certificate and key: checked when present, issued by the CA when both are not. */
async function loadOrIssueServing(
  ctx: DirContext,
  rootCertPem: string,
  ca: CertificateAuthority | undefined,
  hosts: readonly string[],
  now: Date,
): Promise<{ certChainPem: string; keyPem: string } | undefined> {
  const certChainPem = ctx.read('certChain');
  const keyPem = ctx.read('key');
  if (certChainPem === undefined && keyPem === undefined && ca) {
    const serving = await issueServingCertificate(ca, hosts, now);
    const chain = servingChain(ca, serving.certPem);
    ctx.write('certChain', chain, false);
    ctx.write('key', serving.keyPem, true);
    return { certChainPem: chain, keyPem: serving.keyPem };
  }
  const files = { rootCertPem, certChainPem, keyPem, hosts };
  loadServing(files, ctx.path, ctx.problems, ctx.notes, now);
  return certChainPem !== undefined && keyPem !== undefined ? { certChainPem, keyPem } : undefined;
}

function loadOrMakeJwtKey(ctx: DirContext): KeyObject | undefined {
  const pem = ctx.read('jwtKey');
  if (pem !== undefined) return loadJwtKey(pem, ctx.path, ctx.problems);
  const key = generateJwtKey();
  ctx.write('jwtKey', jwtKeyToPem(key), true);
  return key;
}
