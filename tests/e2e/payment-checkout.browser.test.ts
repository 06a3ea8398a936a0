import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openPage, screenshot, startPublicApp, type PublicApp } from '../helpers/browser';
import { createUser } from '../helpers/factories';
import { ledgerBalance } from '../helpers/ledger-fixtures';
import { createIntent, mintRecords, paymentBecomes, paymentRow, supplyTokens } from '../helpers/payment-fixtures';
import { startLedgerSandbox, startPaystackSandbox, type RunningLedger, type RunningProvider } from '../helpers/sandboxes';

let ledger: RunningLedger;
let provider: RunningProvider;
let running: PublicApp;
let browser: Browser;
let page: Page;
/** What the browser refused under the Content-Security-Policy, as it reports it on the console. */
let cspViolations: string[];

beforeAll(async () => {
  ledger = await startLedgerSandbox();
  provider = await startPaystackSandbox();
  running = await startPublicApp({ ...ledger.env, ...provider.env });
  await supplyTokens(running.app);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await running?.close();
  await ledger?.stop();
  await provider?.stop();
});
beforeEach(async () => {
  page = await openPage(browser);
  cspViolations = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
});
afterEach(async () => {
  await page.close();
});

describe('buying tokens in a browser', () => {
  it('pays on the checkout page and lands on the callback page showing the payment and the new balance', async () => {
    const user = await createUser(running.app);
    const intent = await createIntent(running.app, user, 1500);

    await page.goto(intent.authorization_url);
    await page.getByText('₦1,500.00').waitFor();
    await screenshot(page, 'payments-checkout');
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/api/payments/callback');

    expect(new URL(page.url()).origin).toBe(running.url);
    await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
    expect(await page.locator('#amount').textContent()).toBe('₦1,500.00');
    expect(await page.locator('#tokens').textContent()).toBe('1,500.00 WLT');
    expect(await page.locator('#balance').textContent()).toBe('1,500.00 WLT');
    expect(await page.locator('#settled-earlier').count()).toBe(0);
    await expectStyledLikeTheCheckout(page);
    await screenshot(page, 'payments-callback-success');
    expect(await ledgerBalance(ledger.url, user.ledgerPublicKey)).toBe('1500.0000000');
    expect(await paymentRow(running.app, intent.reference)).toMatchObject({ status: 'minted' });

    await page.reload();
    await page.locator('#settled-earlier').waitFor();
    expect(await page.locator('h1').textContent()).toBe('Payment successful');
    expect(await page.locator('#amount').textContent()).toBe('₦1,500.00');
    expect(await page.locator('#balance').textContent()).toBe('1,500.00 WLT');
    expect(await ledgerBalance(ledger.url, user.ledgerPublicKey)).toBe('1500.0000000');
  });

  it('shows the purchase and the balance when the webhook settled the payment before the browser came back', async () => {
    const user = await createUser(running.app);
    const intent = await createIntent(running.app, user, 1500.5);
    provider.sandbox.setWebhookUrl(`${running.url}/api/payments/webhook`);
    // The checkout's redirect back is held until the webhook has minted, so the callback finds the
    // payment settled. (Playwright does not route a redirect's target, so the Pay answer is held.)
    await page.route(`${intent.authorization_url}/pay`, async (route) => {
      const redirect = await route.fetch({ maxRedirects: 0 });
      await paymentBecomes(running.app, intent.reference, 'minted');
      await route.fulfill({ response: redirect });
    });
    try {
      await page.goto(intent.authorization_url);
      await page.getByRole('button', { name: 'Pay', exact: true }).click();
      await page.waitForURL((url) => url.pathname === '/api/payments/callback');

      expect(await page.locator('h1').textContent()).toBe('Payment successful');
      expect(await page.locator('#amount').textContent()).toBe('₦1,500.50');
      expect(await page.locator('#tokens').textContent()).toBe('1,500.50 WLT');
      expect(await page.locator('#balance').textContent()).toBe('1,500.50 WLT');
      expect(await page.locator('#reference').textContent()).toBe(intent.reference);
      // The webhook consumed the reference; the callback found it settled and minted nothing more.
      expect(await page.locator('#settled-earlier').isVisible()).toBe(true);
      await expectStyledLikeTheCheckout(page);
      await screenshot(page, 'payments-callback-after-webhook');
      expect(await ledgerBalance(ledger.url, user.ledgerPublicKey)).toBe('1500.5000000');
      expect(await mintRecords(running.app, user.userId)).toHaveLength(1);
    } finally {
      provider.sandbox.setWebhookUrl(undefined);
    }
  });

  it('shows the error page after Cancel, and nothing is minted', async () => {
    const user = await createUser(running.app);
    const intent = await createIntent(running.app, user, 700);

    await page.goto(intent.authorization_url);
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/api/payments/callback');

    await page.getByRole('heading', { name: 'Payment failed' }).waitFor();
    expect(await page.locator('#message').textContent()).toBe('The payment was not completed (status: abandoned).');
    expect(await page.locator('#reference').textContent()).toBe(intent.reference);
    await screenshot(page, 'payments-callback-cancelled');
    expect(await ledgerBalance(ledger.url, user.ledgerPublicKey)).toBe('0.0000000');
    expect(await paymentRow(running.app, intent.reference)).toMatchObject({ status: 'initialized' });
  });
});

/** The browser's own function, run inside the page: the tests compile without the DOM library. */
declare const getComputedStyle: (element: unknown) => { backgroundColor: string };

/** The checkout's grey page and white card, applied: the Content-Security-Policy let the page's style through. */
async function expectStyledLikeTheCheckout(shown: Page): Promise<void> {
  expect(await shown.locator('body').evaluate((body) => getComputedStyle(body).backgroundColor)).toBe('rgb(244, 246, 248)');
  expect(await shown.locator('main').evaluate((main) => getComputedStyle(main).backgroundColor)).toBe('rgb(255, 255, 255)');
  expect(cspViolations).toEqual([]);
}
