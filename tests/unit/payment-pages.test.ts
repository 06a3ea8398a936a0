import {
  paymentErrorPage,
  paymentNotMintedPage,
  paymentSuccessPage,
  paymentUnderReviewPage,
  type PaymentSuccessInput,
} from '../../src/views/payment-pages';

const SCRIPT_PAYLOAD = '<script>alert(1)</script>';
const SCRIPT_ESCAPED = '&lt;script&gt;alert(1)&lt;/script&gt;';
const ATTRIBUTE_PAYLOAD = '"><img src=x onerror=alert(1)>';
const ATTRIBUTE_ESCAPED = '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;';

const headingsOf = (html: string) => [...html.matchAll(/<h1>([^<]*)<\/h1>/g)].map((match) => match[1]);
const textOf = (html: string, id: string) => new RegExp(`id="${id}">([^<]*)<`).exec(html)?.[1];

/** Self-contained: no script at all, nothing loaded from elsewhere. */
function expectNoScriptOrExternalAsset(html: string): void {
  expect(html).not.toMatch(/<(script|link|img|iframe|object|embed)\b|<[^>]*\s(src|href)=|https?:\/\//i);
}

const minted: PaymentSuccessInput = {
  reference: 'ref-123',
  amountKobo: 150_050n,
  tokensStroops: 15_005_000_000n,
  tokenCode: 'WLT',
  tokens: { state: 'minted', balanceStroops: 75_012_345_678n },
  settledEarlier: false,
};

describe('paymentSuccessPage', () => {
  it('shows the Naira paid, the tokens bought and the new balance as people write them, and the reference', () => {
    const html = paymentSuccessPage(minted);

    expect(headingsOf(html)).toEqual(['Payment successful']);
    expect(html).toContain('<title>Payment successful</title>');
    expect(textOf(html, 'amount')).toBe('₦1,500.50');
    expect(textOf(html, 'tokens')).toBe('1,500.50 WLT');
    expect(textOf(html, 'balance')).toBe('7,501.2345678 WLT');
    expect(textOf(html, 'reference')).toBe('ref-123');
    expect(textOf(html, 'message')).toBe('Your payment was received and your tokens have been minted.');
    expect(html).not.toContain('settled-earlier');
    expectNoScriptOrExternalAsset(html);
  });

  it('says the balance will follow when the ledger did not give it', () => {
    const html = paymentSuccessPage({ ...minted, tokens: { state: 'minted', balanceStroops: undefined } });

    expect(html).not.toContain('New balance');
    expect(html).toContain('Your new balance will show in your wallet shortly.');
    expect(textOf(html, 'tokens')).toBe('1,500.50 WLT');
  });

  it.each([
    ['minting', 'Your payment was received. Your tokens are on their way: the mint is being confirmed.'],
    ['wallet_pending', 'Your payment was received. Your tokens are on their way: your wallet is being set up, and they are minted as soon as it is ready.'],
  ] as const)('says the tokens are on their way while %s, with the purchase and no balance', (state, message) => {
    const html = paymentSuccessPage({ ...minted, tokens: { state } });

    expect(headingsOf(html)).toEqual(['Payment successful']);
    expect(textOf(html, 'message')).toBe(message);
    expect(textOf(html, 'amount')).toBe('₦1,500.50');
    expect(textOf(html, 'tokens')).toBe('1,500.50 WLT');
    expect(html).not.toContain('id="balance"');
    expect(html).toContain('Your new balance will show in your wallet shortly.');
  });

  it('shows the same purchase when it was settled earlier, saying nothing more was charged', () => {
    const fresh = paymentSuccessPage(minted);
    const earlier = paymentSuccessPage({ ...minted, settledEarlier: true });

    for (const id of ['amount', 'tokens', 'balance', 'reference', 'message']) expect(textOf(earlier, id)).toBe(textOf(fresh, id));
    expect(headingsOf(earlier)).toEqual(['Payment successful']);
    expect(textOf(earlier, 'settled-earlier')).toBe('This payment was confirmed before this page opened. Nothing more was charged or minted.');
  });

  it('escapes every value', () => {
    const html = paymentSuccessPage({ ...minted, reference: SCRIPT_PAYLOAD, tokenCode: ATTRIBUTE_PAYLOAD });

    expect(html).not.toContain(SCRIPT_PAYLOAD);
    expect(html).not.toContain(ATTRIBUTE_PAYLOAD);
    expect(html).toContain(SCRIPT_ESCAPED);
    expect(html).toContain(`1,500.50 ${ATTRIBUTE_ESCAPED}`);
    expectNoScriptOrExternalAsset(html);
  });
});

describe.each([
  ['paymentNotMintedPage', paymentNotMintedPage, 'Tokens not minted', 'The tokens for this payment were not minted. Contact support with this reference.'],
  ['paymentUnderReviewPage', paymentUnderReviewPage, 'Payment under review', 'This purchase is being reviewed. Contact support with this reference.'],
])('%s', (_name, render, heading, message) => {
  it('shows its heading, asks the buyer to contact support, and gives the reference', () => {
    const html = render({ reference: 'ref-456' });

    expect(headingsOf(html)).toEqual([heading]);
    expect(textOf(html, 'message')).toBe(message);
    expect(textOf(html, 'reference')).toBe('ref-456');
    expectNoScriptOrExternalAsset(html);
  });

  it.each([SCRIPT_PAYLOAD, ATTRIBUTE_PAYLOAD])('escapes the reference %s', (payload) => {
    const html = render({ reference: payload });

    expect(html).not.toContain(payload);
    expect(html).toContain(payload === SCRIPT_PAYLOAD ? SCRIPT_ESCAPED : ATTRIBUTE_ESCAPED);
  });
});

describe('paymentErrorPage', () => {
  it('shows its own heading, the message and the reference when given', () => {
    const html = paymentErrorPage({ reference: 'ref-789', message: 'The payment was not completed.' });

    expect(headingsOf(html)).toEqual(['Payment failed']);
    expect(html).toContain('The payment was not completed.');
    expect(html).toContain('ref-789');
    expectNoScriptOrExternalAsset(html);
  });

  it('works without a reference', () => {
    const html = paymentErrorPage({ message: 'No payment reference was given.' });

    expect(headingsOf(html)).toEqual(['Payment failed']);
    expect(html).toContain('No payment reference was given.');
    expect(html).not.toContain('Reference');
  });

  it('escapes XSS attempts in both the reference and the message', () => {
    const html = paymentErrorPage({ reference: ATTRIBUTE_PAYLOAD, message: SCRIPT_PAYLOAD });

    expect(html).not.toContain(SCRIPT_PAYLOAD);
    expect(html).not.toContain(ATTRIBUTE_PAYLOAD);
    expect(html).toContain(SCRIPT_ESCAPED);
    expect(html).toContain(ATTRIBUTE_ESCAPED);
    expectNoScriptOrExternalAsset(html);
  });
});

describe('the payment pages', () => {
  it('have distinct headings', () => {
    const headings = [
      ...headingsOf(paymentSuccessPage(minted)),
      ...headingsOf(paymentNotMintedPage({ reference: 'r' })),
      ...headingsOf(paymentUnderReviewPage({ reference: 'r' })),
      ...headingsOf(paymentErrorPage({ message: 'm' })),
    ];

    expect(new Set(headings).size).toBe(4);
  });

  it('wear the checkout card in one style element, which the Content-Security-Policy allows inline', () => {
    const html = paymentSuccessPage(minted);

    expect(html).toMatch(/<style>[^<]*main \{[^}]*background: #fff;[^<]*<\/style>/);
    expect(html).toMatch(/<body>\s*<main>[\s\S]*<\/main>\s*<\/body>/);
    expect(html).not.toMatch(/\sstyle=/);
  });
});
