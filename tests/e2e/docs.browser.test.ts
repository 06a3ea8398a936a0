import type { Browser, Page } from 'playwright-core';
import { buildOpenApiDocument } from '../../src/http/openapi';
import { launchBrowser, openPage, screenshot, startPublicApp, type PublicApp } from '../helpers/browser';

let running: PublicApp;
let browser: Browser;
let page: Page;
/** Console errors and failed page scripts: a CSP refusal shows up here. */
let problems: string[];
/** Requests that left the app's origin (a CDN, the online validator). */
let outside: string[];

beforeAll(async () => {
  running = await startPublicApp({});
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await running?.close();
});
beforeEach(async () => {
  page = await openPage(browser);
  problems = [];
  outside = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('request', (request) => {
    if (!request.url().startsWith(running.url)) outside.push(request.url());
  });
});
afterEach(async () => {
  await page.close();
});

describe('Swagger UI at /docs', () => {
  it('renders an operation block for every documented route, offline and within the CSP', async () => {
    const doc = buildOpenApiDocument(running.app.container.routeGroups);
    const documented = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      ['get', 'post', 'put', 'delete'].filter((m) => (item as Record<string, unknown>)[m]).map((method) => ({ method, path })),
    );

    await page.goto(`${running.url}/docs`);
    await page.locator('.opblock').first().waitFor();
    await page.locator('.info .title').getByText('Wallet Service API').waitFor();

    expect(await page.locator('.opblock').count()).toBe(documented.length);
    for (const { method, path } of documented) {
      const block = page.locator(`.opblock-${method}`).filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });
      expect({ method, path, blocks: await block.count() }).toEqual({ method, path, blocks: 1 });
    }
    for (const tag of ['Users', 'Admin', 'Ledger', 'Payments', 'Operations']) {
      expect(await page.locator(`.opblock-tag[data-tag="${tag}"]`).count()).toBe(1);
    }
    await screenshot(page, 'docs');
    expect(problems).toEqual([]);
    expect(outside).toEqual([]);
  });

  it('opens an operation with its example request body and the group error body', async () => {
    await page.goto(`${running.url}/docs#/Users/postUsersSignup`);
    const block = page.locator('#operations-Users-postUsersSignup');
    await block.locator('.opblock-body').waitFor();
    await block.getByText('"ada_lovelace"').first().waitFor();
    await block.locator('.response[data-code="429"]').waitFor();
    expect(await block.locator('.response[data-code="400"]').count()).toBe(1);
    expect(await block.locator('.response[data-code="201"]').count()).toBe(1);
    await screenshot(page, 'docs-signup');
    expect(problems).toEqual([]);
  });
});
