import { formatNairaForPeople, formatTokensForPeople } from '../domain/amounts';
import { escapeHtml, page } from './html';

/**
 * The pages `GET /api/payments/callback` answers after the provider's checkout sends the buyer
 * back, in the buyer's terms: what they paid, the tokens it bought and where those are now. The
 * headings are stable: tests and the browser flow look for them. Every value is escaped, because
 * the reference arrives in the query string and anyone can craft that link. No script and no
 * external asset, so the pages work under a strict Content-Security-Policy.
 */

/** Where the bought tokens are, as far as the buyer is concerned. */
export type TokensDelivery =
  /** On the ledger; the wallet's balance after the mint, when the ledger said. */
  | { state: 'minted'; balanceStroops: bigint | undefined }
  /** The mint is written and the ledger is confirming it. */
  | { state: 'minting' }
  /** Paid; the buyer's wallet is still being set up, and the mint follows once it is. */
  | { state: 'wallet_pending' };

export interface PaymentSuccessInput {
  reference: string;
  amountKobo: bigint;
  tokensStroops: bigint;
  tokenCode: string;
  tokens: TokensDelivery;
  /** Another caller (the webhook, the provider sweep, a verify, an earlier visit) settled it first. */
  settledEarlier: boolean;
}

const DELIVERY_TEXT: Record<TokensDelivery['state'], string> = {
  minted: 'Your payment was received and your tokens have been minted.',
  minting: 'Your payment was received. Your tokens are on their way: the mint is being confirmed.',
  wallet_pending: 'Your payment was received. Your tokens are on their way: your wallet is being set up, and they are minted as soon as it is ready.',
};

/** A paid purchase, whoever settled it: the amount, the tokens, and the balance once they are minted. */
export function paymentSuccessPage(input: PaymentSuccessInput): string {
  const { tokens } = input;
  const balance =
    tokens.state === 'minted' && tokens.balanceStroops !== undefined
      ? `\n  <dt>New balance</dt><dd id="balance">${escapeHtml(formatTokensForPeople(tokens.balanceStroops, input.tokenCode))}</dd>`
      : '';
  const later = balance ? '' : '\n<p>Your new balance will show in your wallet shortly.</p>';
  const earlier = input.settledEarlier ? '\n<p class="note" id="settled-earlier">This payment was confirmed before this page opened. Nothing more was charged or minted.</p>' : '';
  return page(
    'Payment successful',
    `<h1>Payment successful</h1>
<p class="amount" id="amount">${escapeHtml(formatNairaForPeople(input.amountKobo))}</p>
<p class="ok" id="message">${DELIVERY_TEXT[tokens.state]}</p>
<dl>
  <dt>Tokens bought</dt><dd id="tokens">${escapeHtml(formatTokensForPeople(input.tokensStroops, input.tokenCode))}</dd>${balance}
  <dt>Reference</dt><dd id="reference">${escapeHtml(input.reference)}</dd>
</dl>${later}${earlier}
<p>You can close this page.</p>`,
  );
}

/** The payment will never be minted (the ledger refused it, or the payment was refused): a person must look. */
export function paymentNotMintedPage(input: { reference: string }): string {
  return supportPage('Tokens not minted', input.reference, 'The tokens for this payment were not minted. Contact support with this reference.', 'error');
}

/** A payment in a state these pages do not describe (yet): neither success nor failure is claimed. */
export function paymentUnderReviewPage(input: { reference: string }): string {
  return supportPage('Payment under review', input.reference, 'This purchase is being reviewed. Contact support with this reference.', 'note');
}

function supportPage(heading: string, reference: string, message: string, tone: 'error' | 'note'): string {
  return page(
    heading,
    `<h1>${heading}</h1>
<p class="${tone}" id="message">${message}</p>
<dl>
  <dt>Reference</dt><dd id="reference">${escapeHtml(reference)}</dd>
</dl>`,
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
