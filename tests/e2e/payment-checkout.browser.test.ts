import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openPage, screenshot, startPublicApp, type PublicApp } from '../helpers/browser';
import { createUser } from '../helpers/factories';
import { ledgerBalance } from '../helpers/ledger-fixtures';
import { createIntent, paymentRow, supplyTokens } from '../helpers/payment-fixtures';
import { startLedgerSandbox, startPaystackSandbox, type RunningLedger, type RunningProvider } from '../helpers/sandboxes';

let ledger: RunningLedger;
let provider: RunningProvider;
let running: PublicApp;
let browser: Browser;
let page: Page;

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
    expect(await page.locator('#amount').textContent()).toBe('₦1500.00');
    expect(await page.locator('#balance').textContent()).toBe('1500.0000000 WLT');
    await screenshot(page, 'payments-callback-success');
    expect(await ledgerBalance(ledger.url, user.ledgerPublicKey)).toBe('1500.0000000');
    expect(await paymentRow(running.app, intent.reference)).toMatchObject({ status: 'minted' });

    await page.reload();
    await page.getByRole('heading', { name: 'Payment already processed' }).waitFor();
    expect(await ledgerBalance(ledger.url, user.ledgerPublicKey)).toBe('1500.0000000');
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
