import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '@wallet/paystack-sandbox/testing';
import { PATIENCE_MS } from './patience';
import { startTestApp, type TestApp } from './test-app';

/** Screenshots land here (kept after the run, ignored by git). */
export const ARTIFACTS_DIR = path.resolve(__dirname, '../../test-artifacts');

/** Headless Chromium (Debian's, or the npm package's: see packages/paystack-sandbox/tests/chromium.ts). */
export async function launchBrowser(): Promise<Browser> {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  return launchChromium();
}

/**
 * A new page whose waits (navigation, locators, clicks) last as long as the suite is patient, not
 * Playwright's 30 s: a real Chromium on a busy machine is slow, not wrong.
 */
export async function openPage(browser: Browser): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(PATIENCE_MS);
  return page;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}.png`), fullPage: true });
}

export interface PublicApp {
  app: TestApp;
  /** Where a browser reaches the app; also its PUBLIC_BASE_URL (callback address, e-mail links). */
  url: string;
  close(): Promise<void>;
}

/**
 * The app on a real port, built knowing its own address: the port is taken first and the app is
 * attached to it once built, so PUBLIC_BASE_URL is right without guessing a free port.
 */
export async function startPublicApp(env: Record<string, string>): Promise<PublicApp> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const app = await startTestApp({ ...env, PUBLIC_BASE_URL: url });
  server.on('request', app.container.app);
  return {
    app,
    url,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}
