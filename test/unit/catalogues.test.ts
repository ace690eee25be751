/**
 * Every message catalogue (`defineCatalogue` in src/ and scripts/) speaks both languages: the
 * same keys in English and Korean, no empty message, and a Korean side that is Korean. Messages
 * that take values are called with stand-in values. Catalogues are found by reading the
 * sources, so a new one is checked without being listed here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LANGS } from '../../src/util/lang.js';
import { packageRoot } from '../../src/util/package-root.js';

const ROOT = packageRoot();

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(ROOT, dir, file))
    .filter((path) => /\bdefineCatalogue\(/.test(readFileSync(path, 'utf8')))
    .filter((path) => !path.endsWith(join('util', 'catalogue.ts')));
}

const FILES = [...sources('src'), ...sources('scripts')].map((path) => relative(ROOT, path));

/** Any property read gives `7`: it reads as a number, a string and a true condition. */
const STAND_IN = new Proxy({}, { get: () => 7 });

function render(message: unknown): string {
  return typeof message === 'function'
    ? String((message as (v: unknown) => unknown)(STAND_IN))
    : String(message);
}

function isCatalogue(value: unknown): value is Record<string, Record<string, unknown>> {
  return typeof value === 'object' && value !== null && LANGS.every((lang) => lang in value);
}

describe('message catalogues', () => {
  it('are found in the sources (demo, serve)', () => {
    expect(FILES).toEqual(
      expect.arrayContaining([
        'scripts/demo-messages.ts',
        'scripts/demo-steps-messages.ts',
        'scripts/demo-clusters-messages.ts',
        'src/cli/serve/serve-messages.ts',
      ]),
    );
  });

  it.each(FILES)(
    '%s: every key in both languages, none empty, the Korean in Korean',
    async (file) => {
      const module = (await import(pathToFileURL(join(ROOT, file)).href)) as Record<
        string,
        unknown
      >;
      const catalogues = Object.entries(module).filter(([, value]) => isCatalogue(value));
      expect(catalogues.length, `${file} exports no catalogue`).toBeGreaterThan(0);
      for (const [name, catalogue] of catalogues as [
        string,
        Record<string, Record<string, unknown>>,
      ][]) {
        const en = catalogue['en']!;
        const ko = catalogue['ko']!;
        expect(Object.keys(ko).sort(), `${name}: the Korean keys`).toEqual(Object.keys(en).sort());
        for (const lang of LANGS) {
          for (const [key, message] of Object.entries(catalogue[lang]!)) {
            expect(
              typeof message === 'string' || typeof message === 'function',
              `${name}.${lang}.${key}`,
            ).toBe(true);
            const text = render(message);
            expect(text.trim(), `${name}.${lang}.${key} is empty`).not.toBe('');
            expect(text, `${name}.${lang}.${key}`).not.toMatch(/undefined|\[object /);
          }
        }
        for (const [key, message] of Object.entries(ko)) {
          expect(render(message), `${name}.ko.${key} has no Korean`).toMatch(/[가-힣]/);
        }
      }
    },
  );
});
