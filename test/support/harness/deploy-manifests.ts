/**
 * The Kubernetes manifests of deploy/, read as `kubectl apply -k` would see them: every YAML
 * document of every file, with the file it came from.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { packageRoot } from '../../../src/util/package-root.js';

export const DEPLOY_DIR = join(packageRoot(), 'deploy');

export interface ManifestBody {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

export interface Manifest extends ManifestBody {
  /** The file, relative to deploy/. */
  file: string;
}

/** Every .yaml file under deploy/, relative to it, in name order. */
export function deployFiles(dir = DEPLOY_DIR): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return deployFiles(path);
      return name.endsWith('.yaml') ? [relative(DEPLOY_DIR, path)] : [];
    });
}

/** Every document of every file; a YAML syntax error throws, naming the file. */
export function readManifests(): Manifest[] {
  return deployFiles().flatMap((file) =>
    parseAllDocuments(readFileSync(join(DEPLOY_DIR, file), 'utf8')).map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message}`);
      return { ...(doc.toJS() as ManifestBody), file };
    }),
  );
}

/** The one manifest of `kind` named `name`; throws when there is not exactly one. */
export function manifest<T = Manifest>(all: Manifest[], kind: string, name: string): T {
  const found = all.filter((m) => m.kind === kind && m.metadata.name === name);
  if (found.length !== 1)
    throw new Error(`expected one ${kind} ${name} in deploy/, found ${found.length}`);
  return found[0] as T;
}
