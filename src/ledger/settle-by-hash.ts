import type { Transaction } from '@stellar/stellar-sdk';
import { LedgerIndeterminateError, LedgerRejectedError, LedgerUnavailableError } from '../clients/ledger-errors';
import type { StellarClient, SubmitResult } from '../clients/stellar.client';

const ATTEMPTS = 6;

/**
 * Settles a submission whose outcome is unknown: looks the hash up and, while it is not on the
 * ledger, resubmits the very same envelope (one hash applies at most once). When the attempts run
 * out the outcome is still unknown and stays so: the caller must not build a replacement; the
 * reconciler (for mints) picks it up later.
 */
export async function settleByHash(client: StellarClient, tx: Transaction, hash: string): Promise<SubmitResult> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    await new Promise((r) => setTimeout(r, Math.min(4000, 250 * 2 ** attempt)));
    try {
      const found = await client.findTransaction(hash);
      if (found?.successful) return { hash, ledger: found.ledger };
      if (found && !found.successful) throw new LedgerRejectedError('tx_failed', []);
      return await client.submit(tx);
    } catch (err) {
      if (err instanceof LedgerRejectedError) {
        // A duplicate submission of an applied envelope is refused (tx_bad_seq): check once more.
        const found = await client.findTransaction(hash).catch(() => undefined);
        if (found?.successful) return { hash, ledger: found.ledger };
        throw err;
      }
      if (!(err instanceof LedgerIndeterminateError || err instanceof LedgerUnavailableError)) throw err;
    }
  }
  throw new LedgerIndeterminateError(hash);
}
