import { paymentAlreadyProcessedPage, paymentErrorPage, paymentSuccessPage } from '../../src/views/payment-pages';

const SCRIPT_PAYLOAD = '<script>alert(1)</script>';
const SCRIPT_ESCAPED = '&lt;script&gt;alert(1)&lt;/script&gt;';
const ATTRIBUTE_PAYLOAD = '"><img src=x onerror=alert(1)>';
const ATTRIBUTE_ESCAPED = '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;';

const headingsOf = (html: string) => [...html.matchAll(/<h1>([^<]*)<\/h1>/g)].map((match) => match[1]);

/** Self-contained: no script at all, nothing loaded from elsewhere. */
function expectNoScriptOrExternalAsset(html: string): void {
  expect(html).not.toMatch(/<(script|link|img|iframe|object|embed)\b|<[^>]*\s(src|href)=|https?:\/\//i);
}

const success = {
  reference: 'ref-123',
  amountNaira: '5000.00',
  tokensMinted: '5000',
  tokenCode: 'WLT',
  balance: '7500.5' as string | undefined,
};

describe('paymentSuccessPage', () => {
  it('shows the heading, the Naira amount, the tokens minted with their code, the balance and the reference', () => {
    const html = paymentSuccessPage(success);

    expect(headingsOf(html)).toEqual(['Payment successful']);
    expect(html).toContain('<title>Payment successful</title>');
    expect(html).toContain('&#8358;5000.00');
    expect(html).toContain('5000 WLT');
    expect(html).toContain('7500.5 WLT');
    expect(html).toContain('ref-123');
    expectNoScriptOrExternalAsset(html);
  });

  it('says the balance will follow when it is not known yet', () => {
    const html = paymentSuccessPage({ ...success, balance: undefined });

    expect(html).not.toContain('New balance');
    expect(html).toContain('Your new balance will show in your wallet shortly.');
    expect(html).toContain('5000 WLT');
  });

  it('escapes every value', () => {
    const html = paymentSuccessPage({
      reference: SCRIPT_PAYLOAD,
      amountNaira: ATTRIBUTE_PAYLOAD,
      tokensMinted: SCRIPT_PAYLOAD,
      tokenCode: ATTRIBUTE_PAYLOAD,
      balance: SCRIPT_PAYLOAD,
    });

    expect(html).not.toContain(SCRIPT_PAYLOAD);
    expect(html).not.toContain(ATTRIBUTE_PAYLOAD);
    expect(html).toContain(SCRIPT_ESCAPED);
    expect(html).toContain(ATTRIBUTE_ESCAPED);
    expectNoScriptOrExternalAsset(html);
  });
});

describe('paymentAlreadyProcessedPage', () => {
  it('shows its own heading and the reference', () => {
    const html = paymentAlreadyProcessedPage({ reference: 'ref-456' });

    expect(headingsOf(html)).toEqual(['Payment already processed']);
    expect(html).toContain('ref-456');
    expectNoScriptOrExternalAsset(html);
  });

  it.each([SCRIPT_PAYLOAD, ATTRIBUTE_PAYLOAD])('escapes the reference %s', (payload) => {
    const html = paymentAlreadyProcessedPage({ reference: payload });

    expect(html).not.toContain(payload);
    expect(html).toContain(payload === SCRIPT_PAYLOAD ? SCRIPT_ESCAPED : ATTRIBUTE_ESCAPED);
    expectNoScriptOrExternalAsset(html);
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

describe('the three payment pages', () => {
  it('have distinct headings', () => {
    const headings = [
      ...headingsOf(paymentSuccessPage(success)),
      ...headingsOf(paymentAlreadyProcessedPage({ reference: 'r' })),
      ...headingsOf(paymentErrorPage({ message: 'm' })),
    ];

    expect(new Set(headings).size).toBe(3);
  });
});
