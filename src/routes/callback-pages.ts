import type { Request } from 'express';
import { z } from 'zod';
import { formatKobo, formatStroops } from '../domain/amounts';
import type { Failure } from '../http/route-errors';
import { paymentReferenceSchema } from '../http/schemas';
import type { LedgerService } from '../services/ledger.service';
import type { SettleOutcome } from '../services/payment.service';
import { paymentAlreadyProcessedPage, paymentErrorPage, paymentSuccessPage } from '../views/payment-pages';

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

/** The page for an outcome of the settlement; a minted payment shows the new balance when the ledger answers. */
export async function callbackPage(outcome: SettleOutcome, reference: string, deps: { ledger: LedgerService; tokenCode: string }): Promise<CallbackPage> {
  switch (outcome.kind) {
    case 'minted':
    case 'verified': {
      const balance = outcome.kind === 'minted' ? await tokenBalance(deps.ledger, outcome.payment.destinationPublicKey!) : undefined;
      return {
        status: 200,
        html: paymentSuccessPage({
          reference,
          amountNaira: formatKobo(outcome.amountKobo),
          tokensMinted: formatStroops(outcome.tokensStroops),
          tokenCode: deps.tokenCode,
          balance,
        }),
      };
    }
    case 'already_processed':
      return { status: 200, html: paymentAlreadyProcessedPage({ reference }) };
    case 'mint_failed':
      return { status: 200, html: paymentErrorPage({ reference, message: 'The payment was received, but its tokens could not be minted. Contact support with this reference.' }) };
    case 'not_paid':
      return { status: 200, html: paymentErrorPage({ reference, message: `The payment was not completed (status: ${outcome.status}).` }) };
    case 'mismatch':
      return { status: 200, html: paymentErrorPage({ reference, message: 'The paid amount does not match the payment.' }) };
    case 'unknown':
      return { status: 404, html: paymentErrorPage({ reference, message: 'This payment reference is unknown.' }) };
  }
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

async function tokenBalance(ledger: LedgerService, publicKey: string): Promise<string | undefined> {
  return ledger.tokenBalance(publicKey).catch(() => undefined);
}
