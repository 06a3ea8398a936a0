import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

const REPO_ROOT = path.resolve(__dirname, '../..');
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/**
 * The Chromium the browser tests drive: CHROMIUM_PATH if set, Debian's if installed, else the one
 * inside the `@sparticuz/chromium` npm package (a devDependency), unpacked to the temp directory
 * on first use. Nothing is downloaded either way.
 *
 * The package is an ES module, which Jest's module sandbox cannot load: a child Node process asks
 * it for the path. Jest's global setup does this once per run (tests/helpers/global-setup.ts), so
 * parallel workers never unpack it at the same time; a test run without it asks here.
 */
export function findChromium(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  if (fs.existsSync(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  const script = "import('@sparticuz/chromium').then(async (m) => process.stdout.write(await m.default.executablePath()))";
  return execFileSync(process.execPath, ['-e', script], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 }).trim();
}

/** Headless Chromium with everything that would reach the network switched off. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: findChromium(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
