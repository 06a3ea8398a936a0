import type { PaymentRow } from '../../src/db/repositories/payment.repository';
import { callbackPage, type CallbackPageDeps } from '../../src/routes/callback-pages';
import type { LedgerService } from '../../src/services/ledger.service';

const headingOf = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];
const textOf = (html: string, id: string) => new RegExp(`id="${id}">([^<]*)<`).exec(html)?.[1];

/** A payment row as the repository returns it (the columns the pages read); `overrides` sets the state under test. */
function paymentRow(overrides: Partial<PaymentRow>): PaymentRow {
  const now = new Date();
  return {
    reference: 'wlt-ref',
    userId: '00000000-0000-4000-8000-000000000001',
    amountKobo: 150_050n,
    currency: 'NGN',
    status: 'minted',
    tokensStroops: 15_005_000_000n,
    destinationPublicKey: 'GBUYER',
    mintTxHash: 'hash',
    failureReason: null,
    providerPayload: null,
    nextCheckAt: null,
    checkAttempts: 0,
    mintNotYetCount: 0,
    paidAt: now,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  } as PaymentRow;
}

/** The ledger answers `balance` (7-decimal text) for the buyer's wallet, or fails when it is an Error. */
function depsWith(balance: string | Error): CallbackPageDeps & { balanceAsked: string[] } {
  const balanceAsked: string[] = [];
  const ledger = {
    tokenBalance: async (publicKey: string) => {
      balanceAsked.push(publicKey);
      if (balance instanceof Error) throw balance;
      return balance;
    },
  } as unknown as LedgerService;
  // TOKENS_PER_NAIRA 2: 1 kobo buys 200,000 stroops
  return { ledger, payments: { tokensFor: (kobo: bigint) => kobo * 200_000n }, tokenCode: 'WLT', balanceAsked };
}

const settledEarlier = (payment: PaymentRow) => ({ kind: 'already_processed' as const, payment });

describe('the callback page for a payment settled before the buyer came back', () => {
  it('shows the Naira paid, the tokens minted and the balance the ledger gives, as for a fresh success', async () => {
    const deps = depsWith('7501.2345678');

    const page = await callbackPage(settledEarlier(paymentRow({ status: 'minted' })), 'wlt-ref', deps);

    expect(page.status).toBe(200);
    expect(headingOf(page.html)).toBe('Payment successful');
    expect(textOf(page.html, 'amount')).toBe('₦1,500.50');
    expect(textOf(page.html, 'tokens')).toBe('1,500.50 WLT');
    expect(textOf(page.html, 'balance')).toBe('7,501.2345678 WLT');
    expect(textOf(page.html, 'reference')).toBe('wlt-ref');
    expect(page.html).toContain('id="settled-earlier"');
    expect(deps.balanceAsked).toEqual(['GBUYER']);
  });

  it('matches what a fresh mint of the same payment shows, but for the note', async () => {
    const deps = depsWith('1500.5000000');
    const payment = paymentRow({ status: 'minted' });
    const fresh = await callbackPage({ kind: 'minted', payment, amountKobo: 150_050n, tokensStroops: 15_005_000_000n, customerId: 'c' }, 'wlt-ref', deps);

    const earlier = await callbackPage(settledEarlier(payment), 'wlt-ref', deps);

    expect(earlier.html.replace(/\n<p class="note" id="settled-earlier">[^<]*<\/p>/, '')).toBe(fresh.html);
  });

  it('leaves the balance out when the ledger cannot be asked, and says it will follow', async () => {
    const page = await callbackPage(settledEarlier(paymentRow({ status: 'minted' })), 'wlt-ref', depsWith(new Error('ledger down')));

    expect(headingOf(page.html)).toBe('Payment successful');
    expect(textOf(page.html, 'tokens')).toBe('1,500.50 WLT');
    expect(page.html).not.toContain('id="balance"');
    expect(page.html).toContain('Your new balance will show in your wallet shortly.');
  });

  it('says the mint is being confirmed while it is minting, with the tokens the row records', async () => {
    const deps = depsWith('0.0000000');

    const page = await callbackPage(settledEarlier(paymentRow({ status: 'minting', tokensStroops: 12_345_678n })), 'wlt-ref', deps);

    expect(headingOf(page.html)).toBe('Payment successful');
    expect(textOf(page.html, 'message')).toBe('Your payment was received. Your tokens are on their way: the mint is being confirmed.');
    expect(textOf(page.html, 'tokens')).toBe('1.2345678 WLT');
    expect(page.html).not.toContain('id="balance"');
    expect(deps.balanceAsked).toEqual([]);
  });

  it('says the wallet is being set up while it is paid, with the tokens the rate gives', async () => {
    const payment = paymentRow({ status: 'paid', tokensStroops: null, destinationPublicKey: null, mintTxHash: null });

    const page = await callbackPage(settledEarlier(payment), 'wlt-ref', depsWith('0.0000000'));

    expect(headingOf(page.html)).toBe('Payment successful');
    expect(textOf(page.html, 'message')).toMatch(/^Your payment was received\. Your tokens are on their way: your wallet is being set up/);
    expect(textOf(page.html, 'amount')).toBe('₦1,500.50');
    expect(textOf(page.html, 'tokens')).toBe('3,001.00 WLT');
  });

  it('says the tokens were not minted and asks for support with the reference when it failed for a reason', async () => {
    const payment = paymentRow({ status: 'failed', failureReason: 'The ledger refused the mint (op_line_full)' });

    const page = await callbackPage(settledEarlier(payment), 'wlt-ref', depsWith('0.0000000'));

    expect(headingOf(page.html)).toBe('Tokens not minted');
    expect(textOf(page.html, 'message')).toBe('The tokens for this payment were not minted. Contact support with this reference.');
    expect(textOf(page.html, 'reference')).toBe('wlt-ref');
    expect(page.html).not.toContain('op_line_full');
  });

  it.each(['disputed', 'reversed', 'initialized'])('shows a neutral review page for a payment in the state %s', async (status) => {
    const payment = paymentRow({ status: status as PaymentRow['status'] });

    const page = await callbackPage(settledEarlier(payment), 'wlt-ref', depsWith('1500.5000000'));

    expect(page.status).toBe(200);
    expect(headingOf(page.html)).toBe('Payment under review');
    expect(textOf(page.html, 'message')).toBe('This purchase is being reviewed. Contact support with this reference.');
    expect(textOf(page.html, 'reference')).toBe('wlt-ref');
  });
});
