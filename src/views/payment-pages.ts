import { escapeHtml, page } from './html';

/**
 * The pages `GET /api/payments/callback` answers after the provider's checkout sends the buyer
 * back. The headings are stable: tests and the browser flow look for them. Every value is escaped,
 * because the reference arrives in the query string and anyone can craft that link. No script and
 * no external asset, so the pages work under a `default-src 'none'` policy.
 */

export interface PaymentSuccessInput {
  reference: string;
  /** Decimal text without a currency sign, e.g. "5000.00". */
  amountNaira: string;
  /** Decimal text, e.g. "5000". */
  tokensMinted: string;
  tokenCode: string;
  /** Decimal text of the buyer's token balance after the mint; undefined when the ledger did not say. */
  balance: string | undefined;
}

export function paymentSuccessPage(input: PaymentSuccessInput): string {
  const balance =
    input.balance === undefined
      ? '<p>Your new balance will show in your wallet shortly.</p>'
      : `<p>New balance: <strong id="balance">${escapeHtml(input.balance)} ${escapeHtml(input.tokenCode)}</strong></p>`;
  return page(
    'Payment successful',
    `<h1>Payment successful</h1>
<p class="ok">Your payment was received and your tokens have been minted.</p>
<dl>
  <dt>Amount paid</dt><dd id="amount">&#8358;${escapeHtml(input.amountNaira)}</dd>
  <dt>Tokens minted</dt><dd id="tokens-minted">${escapeHtml(input.tokensMinted)} ${escapeHtml(input.tokenCode)}</dd>
  <dt>Reference</dt><dd id="reference">${escapeHtml(input.reference)}</dd>
</dl>
${balance}
<p>You can close this page.</p>`,
  );
}

/** Shown when the reference was settled earlier (by verify-payment, the webhook, or a reload). */
export function paymentAlreadyProcessedPage(input: { reference: string }): string {
  return page(
    'Payment already processed',
    `<h1>Payment already processed</h1>
<p>This payment has already been completed and its tokens were minted then. Nothing more was charged or minted.</p>
<dl>
  <dt>Reference</dt><dd id="reference">${escapeHtml(input.reference)}</dd>
</dl>
<p>You can close this page.</p>`,
  );
}

/** `message` is shown to the buyer as given (escaped): keep provider and internal details out of it. */
export function paymentErrorPage(input: { reference?: string; message: string }): string {
  const reference =
    input.reference === undefined
      ? ''
      : `<dl>
  <dt>Reference</dt><dd id="reference">${escapeHtml(input.reference)}</dd>
</dl>
<p>If you were charged, keep this reference: the payment can still be verified later.</p>`;
  return page(
    'Payment failed',
    `<h1>Payment failed</h1>
<p class="error" id="message">${escapeHtml(input.message)}</p>
${reference}`,
  );
}
