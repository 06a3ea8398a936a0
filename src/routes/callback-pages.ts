import type { Request } from 'express';
import { z } from 'zod';
import type { PaymentRow } from '../db/repositories/payment.repository';
import { parseLedgerAmount } from '../domain/amounts';
import type { Failure } from '../http/route-errors';
import { paymentReferenceSchema } from '../http/schemas';
import type { LedgerService } from '../services/ledger.service';
import type { PaymentService, SettleOutcome } from '../services/payment.service';
import { paymentErrorPage, paymentNotMintedPage, paymentSuccessPage, paymentUnderReviewPage, type TokensDelivery } from '../views/payment-pages';

/** What GET /api/payments/callback answers: a page, whatever happened, since a browser landed there. */
export interface CallbackPage {
  status: number;
  html: string;
}

const callbackQuery = z.object({ reference: paymentReferenceSchema.optional(), trxref: paymentReferenceSchema.optional() });

/** The reference the provider put in the redirect (`reference`, or Paystack's `trxref`), when well-formed. */
export function callbackReference(query: unknown): string | undefined {
  const parsed = callbackQuery.safeParse(query);
  return parsed.success ? (parsed.data.reference ?? parsed.data.trxref) : undefined;
}

/** The reason of the failure thrown when the redirect carries no well-formed reference. */
export const NO_REFERENCE = 'NO_REFERENCE';

/** What the callback's pages need besides the outcome: the ledger for the balance, and the payment rate for tokens not yet minted. */
export interface CallbackPageDeps {
  ledger: LedgerService;
  payments: Pick<PaymentService, 'tokensFor'>;
  tokenCode: string;
}

/**
 * The page for an outcome of the settlement. A paid purchase shows the same summary whether this
 * request settled it or the webhook, the sweep or a verify got there first: the buyer cannot tell
 * those apart and should not have to.
 */
export async function callbackPage(outcome: SettleOutcome, reference: string, deps: CallbackPageDeps): Promise<CallbackPage> {
  switch (outcome.kind) {
    case 'minted':
    case 'verified': {
      const tokens = await deliveryOf(outcome.payment, deps.ledger, outcome.kind === 'minted');
      const purchase = { reference, amountKobo: outcome.amountKobo, tokensStroops: outcome.tokensStroops, tokenCode: deps.tokenCode };
      return { status: 200, html: paymentSuccessPage({ ...purchase, tokens, settledEarlier: false }) };
    }
    case 'already_processed':
      return { status: 200, html: await settledEarlierPage(outcome.payment, reference, deps) };
    case 'mint_failed':
      return { status: 200, html: paymentNotMintedPage({ reference }) };
    case 'not_paid':
      return { status: 200, html: paymentErrorPage({ reference, message: `The payment was not completed (status: ${outcome.status}).` }) };
    case 'mismatch':
      return { status: 200, html: paymentErrorPage({ reference, message: 'The paid amount does not match the payment.' }) };
    case 'unknown':
      return { status: 404, html: paymentErrorPage({ reference, message: 'This payment reference is unknown.' }) };
  }
}

/** A payment another caller settled first, described from its row as it is now. */
async function settledEarlierPage(payment: PaymentRow, reference: string, deps: CallbackPageDeps): Promise<string> {
  // Keyed on the text, with a default: a state added later (a dispute, a reversal) shows the
  // neutral review page instead of a wrong claim or a crash.
  const status: string = payment.status;
  switch (status) {
    case 'minted':
    case 'minting':
    case 'paid': {
      const tokens = await deliveryOf(payment, deps.ledger, false);
      // What the Naira bought: once the mint is written, what reached the wallet plus any earlier
      // debt the purchase settled first; before that, the rate gives it (computed the same way then).
      const tokensStroops = payment.tokensStroops === null ? deps.payments.tokensFor(payment.amountKobo) : payment.tokensStroops + (payment.debtSettledStroops ?? 0n);
      const purchase = { reference, amountKobo: payment.amountKobo, tokensStroops, tokenCode: deps.tokenCode };
      return paymentSuccessPage({ ...purchase, tokens, settledEarlier: true });
    }
    case 'failed':
      // Without a reason it is the provider's decline, which a later success may still consume.
      return payment.failureReason ? paymentNotMintedPage({ reference }) : paymentUnderReviewPage({ reference });
    default:
      return paymentUnderReviewPage({ reference });
  }
}

/**
 * Where a consumed payment's tokens are: minted (`confirmed` when this request saw the ledger apply
 * the mint) with the wallet's balance when the ledger answers, the mint being confirmed, or the
 * mint waiting for the wallet (`paid`).
 */
async function deliveryOf(payment: PaymentRow, ledger: LedgerService, confirmed: boolean): Promise<TokensDelivery> {
  if (confirmed || payment.status === 'minted') {
    const balanceStroops = payment.destinationPublicKey ? await tokenBalance(ledger, payment.destinationPublicKey) : undefined;
    return { state: 'minted', balanceStroops };
  }
  return payment.status === 'paid' ? { state: 'wallet_pending' } : { state: 'minting' };
}

/** The callback's page for a failure, from the rate limit to the provider or the ledger failing mid-settlement. */
export function callbackFailurePage(failure: Failure, req: Request): CallbackPage {
  if (failure.code === 'RATE_LIMITED') {
    return { status: 429, html: paymentErrorPage({ message: 'Too many requests. Wait a few minutes, then reload this page.' }) };
  }
  if (failure.reason === NO_REFERENCE) return { status: 400, html: paymentErrorPage({ message: failure.message }) };
  const unreachable = failure.code === 'UPSTREAM_UNAVAILABLE';
  const message = unreachable
    ? 'The payment provider could not be reached. Reload this page in a moment.'
    : 'The payment could not be verified. Reload this page in a moment.';
  // An unreachable provider is 503 with Retry-After, as on verify-payment and every other route.
  // Anything else the settlement refused is 502: the buyer can only reload, whatever the code said.
  // Outages and bugs keep their own status (503 with Retry-After, or 500).
  const status = unreachable ? 503 : failure.code ? 502 : failure.status;
  return { status, html: paymentErrorPage({ reference: callbackReference(req.query), message }) };
}

async function tokenBalance(ledger: LedgerService, publicKey: string): Promise<bigint | undefined> {
  const text = await ledger.tokenBalance(publicKey).catch(() => undefined);
  return text === undefined ? undefined : parseLedgerAmount(text);
}
