import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openPage, screenshot, startPublicApp, type PublicApp } from '../helpers/browser';
import { createUser, type CreatedUser } from '../helpers/factories';
import { startLedgerSandbox, type RunningLedger } from '../helpers/sandboxes';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp';

let ledger: RunningLedger;
let smtp: TestSmtp;
let running: PublicApp;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ledger = await startLedgerSandbox();
  smtp = await startTestSmtp();
  running = await startPublicApp({ ...ledger.env, SMTP_URL: smtp.url });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await running?.close();
  await smtp?.close();
  await ledger?.stop();
});
beforeEach(async () => {
  page = await openPage(browser);
});
afterEach(async () => {
  await page.close();
});

/** Asks for the reset e-mail through the API and returns the link it carries. */
async function resetLinkFor(user: CreatedUser): Promise<string> {
  await running.app.http.post('/api/users/send-reset-password-email').send({ email: user.email }).expect(200);
  const mail = await smtp.nextMessage();
  const link = /https?:\/\/\S+\/reset-password\?token=\S+/.exec(mail.text ?? '')?.[0];
  if (!link) throw new Error('the reset e-mail carries no link');
  return link;
}

const login = (identifier: string, password: string) => running.app.http.post('/api/users/login').send({ identifier, password });

describe('resetting a password from the e-mailed link', () => {
  it('sets the new password on the linked page; the API then accepts it and refuses the old one', async () => {
    const user = await createUser(running.app);
    const link = await resetLinkFor(user);
    expect(link.startsWith(`${running.url}/reset-password?token=`)).toBe(true);

    await page.goto(link);
    await page.getByLabel('New password', { exact: true }).fill('browser-chosen-pass');
    await page.getByLabel('Repeat the new password').fill('browser-chosen-pass');
    await screenshot(page, 'password-reset-form');
    await page.getByRole('button', { name: 'Set new password' }).click();

    await page.getByText('Your password has been reset. You can now log in.').waitFor();
    expect(await page.locator('#reset-form').isHidden()).toBe(true);
    await screenshot(page, 'password-reset-done');
    expect((await login(user.username, 'browser-chosen-pass')).status).toBe(200);
    expect((await login(user.username, user.password)).status).toBe(401);
  });

  it('refuses two different passwords on the page and leaves the password as it was', async () => {
    const user = await createUser(running.app);
    await page.goto(await resetLinkFor(user));

    await page.getByLabel('New password', { exact: true }).fill('first-version-1');
    await page.getByLabel('Repeat the new password').fill('second-version-2');
    await page.getByRole('button', { name: 'Set new password' }).click();

    await page.getByText('The two passwords differ.').waitFor();
    await screenshot(page, 'password-reset-mismatch');
    expect((await login(user.username, user.password)).status).toBe(200);
  });
});
