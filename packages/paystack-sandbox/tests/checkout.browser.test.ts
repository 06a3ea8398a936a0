import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from './chromium';
import { initializeCharge, startSandbox, type RunningSandbox } from './sandbox-harness';

const ARTIFACTS_DIR = path.resolve(__dirname, '../test-artifacts');

describe('Paystack sandbox checkout in a real browser', () => {
  let running: RunningSandbox;
  let browser: Browser;

  beforeAll(async () => {
    running = await startSandbox({
      // The merchant's callback page, served by the same test app.
      addRoutes: (app) =>
        app.get('/merchant/callback', (req, res) => {
          res.type('html').send(`<h1>Back at the merchant</h1><p id="ref">${String(req.query.reference ?? '').replace(/[^A-Za-z0-9.=-]/g, '')}</p>`);
        }),
    });
    browser = await launchChromium();
    await mkdir(ARTIFACTS_DIR, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await running?.stop();
  });

  it('clicking Pay lands the buyer on the callback URL with trxref and reference', async () => {
    const charge = await initializeCharge(running.api, {
      amount: 1_234_500,
      callback_url: `${running.origin}/merchant/callback?order=42`,
    });
    const page = await openPage(browser);

    await page.goto(charge.authorization_url);
    await expectVisible(page.getByText('₦12,345.00'));
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'paystack-sandbox-checkout.png'), fullPage: true });
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/merchant/callback');

    const landed = new URL(page.url());
    expect(landed.origin).toBe(running.origin);
    expect(landed.searchParams.get('order')).toBe('42');
    expect(landed.searchParams.get('trxref')).toBe(charge.reference);
    expect(landed.searchParams.get('reference')).toBe(charge.reference);
    expect(await page.locator('#ref').textContent()).toBe(charge.reference);
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'paystack-sandbox-after-pay.png'), fullPage: true });
    const verified = await running.api.get(`/transaction/verify/${charge.reference}`);
    expect(verified.data.data.status).toBe('success');
    await page.close();
  });
});

async function expectVisible(locator: import('playwright-core').Locator): Promise<void> {
  await locator.waitFor({ state: 'visible' });
  expect(await locator.isVisible()).toBe(true);
}
