import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveUiPath, serveUiFile, UI_NOT_BUILT } from '../../src/control/ui-static.js';

const root = mkdtempSync(join(tmpdir(), 'ui-static-'));
mkdirSync(join(root, 'assets'));
writeFileSync(join(root, 'index.html'), '<!doctype html><title>page</title>');
writeFileSync(join(root, 'assets', 'index-B4x9kQ2z.js'), 'export {}');
writeFileSync(join(root, 'assets', 'index-B4x9kQ2z.css'), 'body{}');
writeFileSync(join(root, 'favicon.svg'), '<svg/>');
writeFileSync(join(root, '..', 'secret.txt'), 'outside');
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(join(root, '..', 'secret.txt'), { force: true });
});

describe('the built page under /ui/', () => {
  it('serves index.html for / and for paths without an extension, never cached', async () => {
    for (const path of ['', 'proxies', 'proxies/orders']) {
      const answer = await serveUiFile(root, path);
      expect(answer).toMatchObject({
        status: 200,
        contentType: 'text/html; charset=utf-8',
        headers: { 'cache-control': 'no-cache' },
      });
      expect(String(answer.body)).toContain('<title>page</title>');
    }
  });

  it('gives each file its type, and caches only hashed assets for good', async () => {
    const js = await serveUiFile(root, 'assets/index-B4x9kQ2z.js');
    expect(js).toMatchObject({
      status: 200,
      contentType: 'text/javascript; charset=utf-8',
      headers: { 'cache-control': 'public, max-age=31536000, immutable' },
    });
    const css = await serveUiFile(root, 'assets/index-B4x9kQ2z.css');
    expect(css.contentType).toBe('text/css; charset=utf-8');
    const svg = await serveUiFile(root, 'favicon.svg');
    expect(svg).toMatchObject({
      contentType: 'image/svg+xml',
      headers: { 'cache-control': 'no-cache' },
    });
    expect((await serveUiFile(root, 'assets/missing-B4x9kQ2z.js')).status).toBe(404);
  });

  it('never leaves its folder', async () => {
    for (const path of ['../secret.txt', 'assets/../../secret.txt', '..\\secret.txt', 'a\0b.js']) {
      expect(resolveUiPath(root, path)).toBeUndefined();
      const answer = await serveUiFile(root, path);
      expect(answer.status).toBe(404);
      expect(String(answer.body)).not.toContain('outside');
    }
    expect(resolveUiPath(root, './assets//index-B4x9kQ2z.js')).toBe(
      join(root, 'assets', 'index-B4x9kQ2z.js'),
    );
  });

  it('says how to build the page when it is not built', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'ui-empty-'));
    try {
      const answer = await serveUiFile(empty, '');
      expect(answer).toMatchObject({
        status: 503,
        body: { error: UI_NOT_BUILT.trim(), problems: [] },
      });
      expect(UI_NOT_BUILT).toContain('npm run build:ui');
    } finally {
      rmSync(empty, { recursive: true });
    }
  });
});
