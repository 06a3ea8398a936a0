import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { patienceMs } from './patience';

const PACKAGE_ROOT = path.resolve(__dirname, '..');
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/**
 * The Chromium the browser tests drive (this package's checkout test, and the service's browser
 * suites through `@wallet/paystack-sandbox/testing`): CHROMIUM_PATH if set (the service's test run
 * resolves it once in its global setup), Debian's if installed, else the one inside the
 * `@sparticuz/chromium` npm package, unpacked to the temp directory on first use. Nothing is
 * downloaded either way. That npm package is an ES module, which Jest's module sandbox cannot load:
 * a child Node process asks it for the path.
 *
 * It lives here, not in the service's tests: a workspace imports nothing of the service, the
 * service's tests may import a workspace's testing kit.
 */
export function findChromium(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  if (fs.existsSync(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  const script = "import('@sparticuz/chromium').then(async (m) => process.stdout.write(await m.default.executablePath()))";
  // Bounded by itself, not by the suite's patience: the service's global setup calls this before any
  // test, and an unpacking that hangs must still end the run.
  return execFileSync(process.execPath, ['-e', script], { cwd: PACKAGE_ROOT, encoding: 'utf8', timeout: 120_000 }).trim();
}

/**
 * Headless Chromium with everything that would reach the network switched off. It may take as long
 * to start as the suite is patient (Playwright's own limit is 30 s, which a busy machine can pass).
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    timeout: patienceMs(),
    executablePath: findChromium(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * A new page whose waits (navigation, locators, clicks) last as long as the suite is patient,
 * instead of Playwright's 30 s: a real Chromium on a busy machine is slow, not wrong.
 */
export async function openPage(browser: Browser): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(patienceMs());
  return page;
}
