import { Asset, Operation, type Keypair, type Transaction } from '@stellar/stellar-sdk';
import { buildTransaction, fundedAccount, type LedgerClient } from './sandbox-harness';
import { PATIENCE_MS } from './patience';

/** What the SDK's submitTransaction rejects with when the HTTP exchange itself fails (an AxiosError). */
export interface SubmissionError {
  code?: string;
  message: string;
  response?: { status: number; headers: Record<string, string>; data: unknown };
}

/** Submits through the SDK and returns what it rejected with; fails the test if the submission succeeded. */
export async function submissionError(harness: LedgerClient, tx: Transaction): Promise<SubmissionError> {
  try {
    await harness.horizon.submitTransaction(tx);
  } catch (error) {
    return error as SubmissionError;
  }
  throw new Error('the submission was expected to fail but succeeded');
}

export const TIMEOUT_PROBLEM = {
  type: 'https://stellar.org/horizon-errors/timeout',
  title: 'Timeout',
  status: 504,
  detail:
    'Your request timed out before completing. Please try your request again. If you are submitting a transaction ' +
    'make sure you are sending exactly the same transaction (with the same sequence number).',
};

export interface Payment {
  payer: Keypair;
  payee: Keypair;
  tx: Transaction;
  hash: string;
}

/** Two funded accounts and a signed 5 XLM payment between them, not yet submitted. */
export async function preparedPayment(harness: LedgerClient, amount = '5'): Promise<Payment> {
  const [payer, payee] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
  const tx = await buildTransaction(harness, payer, [
    Operation.payment({ destination: payee.publicKey(), asset: Asset.native(), amount }),
  ]);
  return { payer, payee, tx, hash: tx.hash().toString('hex') };
}

export async function getJson<T = Record<string, unknown>>(
  harness: LedgerClient,
  path: string,
  init?: RequestInit,
): Promise<{ status: number; contentType: string | null; body: T }> {
  const response = await fetch(`${harness.url}${path}`, init);
  return { status: response.status, contentType: response.headers.get('content-type'), body: (await response.json()) as T };
}

/** HTTP status of GET /transactions/:hash: 200 once Horizon's read side has the transaction, 404 before. */
export async function transactionStatus(harness: LedgerClient, hash: string): Promise<number> {
  return (await fetch(`${harness.url}/transactions/${hash}`)).status;
}

/**
 * Polls until `probe` returns something other than undefined. Waits as long as the suite does
 * (PATIENCE_MS), then fails naming `what`: a slow machine makes a test slower, never red.
 */
export async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${PATIENCE_MS} ms (the suite's patience) waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
