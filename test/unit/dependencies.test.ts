/**
 * What the product imports, it depends on: every package a file under src/ imports (statically,
 * with import(), or on first use through lazyRequire) is one of package.json's
 * `dependencies`, which is all an installed mock-istiod or its container image has. A package
 * the tests alone use (the X.509 library that makes their CSRs) stays a devDependency.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';

const root = packageRoot();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  dependencies: Record<string, string>;
};

const SPECIFIER =
  /(?:\bfrom|\bimport\(|lazyRequire<[^>]*>\(import\.meta\.url,|\brequire\()\s*'([^'.\s,][^'\s]*)'/g;

/** The package a bare specifier names: `@scope/name` or `name`. */
const packageOf = (specifier: string) => /^(@[^/]+\/[^/]+|[^/]+)/.exec(specifier)?.[1] ?? specifier;

describe('dependencies', () => {
  it('every package src/ imports is a dependency, not a devDependency', () => {
    const missing: string[] = [];
    const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' });
    for (const file of files.filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(join(root, 'src', file), 'utf8');
      for (const [, specifier = ''] of text.matchAll(SPECIFIER)) {
        const name = packageOf(specifier);
        if (name.startsWith('node:') || name === pkg.name) continue;
        if (!(name in pkg.dependencies)) missing.push(`src/${file}: ${specifier}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
