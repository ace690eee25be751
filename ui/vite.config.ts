/**
 * Builds the live page (ui/ → dist/ui/), served by the mock at /ui. Run from the package root
 * (`npm run build:ui`): the paths below are relative to it. Everything the page loads is in
 * the output: no CDN, no web fonts, no icon kits.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'ui',
  // Relative URLs, so the page works under /ui/ (or any prefix a proxy puts in front).
  base: './',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // `npx vite --config ui/vite.config.ts` serves the page with live reload; its data and
  // buttons go to a mock started with `npm start` (control API on its default port).
  server: {
    proxy: {
      '/ui/events': 'http://127.0.0.1:15014',
      '/ui/admins': 'http://127.0.0.1:15014',
      '/control': 'http://127.0.0.1:15014',
    },
  },
  build: {
    outDir: '../dist/ui',
    emptyOutDir: true,
    target: 'es2022',
    assetsDir: 'assets',
    reportCompressedSize: true,
    chunkSizeWarningLimit: 600,
  },
});
