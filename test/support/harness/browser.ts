/**
 * Headless Chromium for the page's browser tests, driven by playwright-core with the
 * Chromium that `npm run install-chromium` provides (Playwright's own browser download is not
 * used). `useBrowser()` closes the browser after each test, even a failed one.
 *
 * Chromium is required: a test that needs it fails, naming the command that installs it, and
 * never skips.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterEach } from 'vitest';

const DEFAULT_PATH = '/usr/bin/chromium';
const HOW = 'run `npm run install-chromium` (scripts/install-chromium.sh) or set CHROMIUM_PATH';

/** The Chromium executable, or an error saying how to install one. */
export function requireChromium(): string {
  const path = process.env.CHROMIUM_PATH || DEFAULT_PATH;
  if (!existsSync(path)) {
    throw new Error(`this test needs Chromium, and there is none at ${path}: ${HOW}`);
  }
  try {
    execFileSync(path, ['--version'], { stdio: 'pipe', timeout: 30_000 });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(
      `this test needs Chromium, but \`${path} --version\` failed (${reason}): ${HOW}`,
      {
        cause: err,
      },
    );
  }
  return path;
}

export interface BrowserFixture {
  /** A new page in a fresh browser context (its own storage), sized like a laptop screen. */
  open(url: string, options?: { locale?: string }): Promise<Page>;
  /** Every URL the test's pages requested, in order (to check the page stays offline). */
  readonly requests: readonly string[];
}

/** Launches Chromium lazily in each test that opens a page, and closes it after each test. */
export function useBrowser(): BrowserFixture {
  let browser: Browser | undefined;
  const requests: string[] = [];
  afterEach(async () => {
    const open = browser;
    browser = undefined;
    requests.length = 0;
    await open?.close();
  });
  return {
    requests,
    async open(url, options = {}) {
      browser ??= await chromium.launch({
        executablePath: requireChromium(),
        // Chromium's sandbox refuses to start as root, which CI machines and containers are.
        args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
        timeout: 30_000,
      });
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        locale: options.locale ?? 'en-US',
      });
      const page = await context.newPage();
      page.on('request', (request) => requests.push(request.url()));
      page.setDefaultTimeout(15_000);
      await page.goto(url);
      return page;
    },
  };
}
