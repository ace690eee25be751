/**
 * The live page's built files (`dist/ui/`, from `npm run build:ui`), served under `/ui/`:
 * content types by extension, `index.html` for any path without an extension (the page's
 * own routes), no way out of the folder, and long caching only for Vite's hashed assets.
 * The files hold no data, so they need no token; the data comes from `/ui/events`.
 */
import { errorResponse, notFound } from './responses.js';
import { readFile } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { packageRoot } from '../util/package-root.js';
import type { ControlResponse } from './router.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

/** Vite names bundled files `<name>-<hash>.<ext>` under `assets/`: safe to cache for good. */
const HASHED = /^assets\/.+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

export const UI_NOT_BUILT =
  'The live page is not built. Build it with "npm run build:ui" (or "npm run build") in the ' +
  'mock-istiod checkout, then reload this page. Its data stream, GET /ui/events, works without it.\n';

/** Where the built page is: `<package root>/dist/ui`. */
export function defaultUiRoot(): string {
  return join(packageRoot(), 'dist', 'ui');
}

/** The file under `root` a request path names, or undefined when it would leave `root`. */
export function resolveUiPath(root: string, path: string): string | undefined {
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.some((s) => s === '..' || s.includes('\\') || s.includes('\0'))) return undefined;
  const base = resolve(root);
  const file = resolve(base, ...segments);
  return file === base || file.startsWith(base + sep) ? file : undefined;
}

async function read(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch {
    return undefined;
  }
}

/** Answers `GET /ui/<path>` from `root`. */
export async function serveUiFile(root: string, path: string): Promise<ControlResponse> {
  const index = await read(join(root, 'index.html'));
  if (!index) return errorResponse(503, UI_NOT_BUILT.trim());
  const file = resolveUiPath(root, path);
  if (file === undefined) return notFound(`no such file: /ui/${path}`);
  const html = { 'cache-control': 'no-cache' };
  const ext = extname(file);
  if (path === '' || ext === '') {
    const body = path === '' ? index : ((await read(file)) ?? index);
    return { status: 200, body, contentType: TYPES['.html'], headers: html };
  }
  const body = await read(file);
  if (!body) return notFound(`no such file: /ui/${path}`);
  const cache = HASHED.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache';
  return {
    status: 200,
    body,
    contentType: TYPES[ext] ?? 'application/octet-stream',
    headers: { 'cache-control': cache, 'x-content-type-options': 'nosniff' },
  };
}
