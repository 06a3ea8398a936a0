import { z } from 'zod';
import type { StoredTransaction } from '../../ledger-history';
import type { RpcDependencies } from '../context';
import { invalidParams } from '../json-rpc';
import { parseParams, xdrFormat } from '../params';
import { ledgerRange, retentionFields } from '../retention';

const schema = z.object({ hash: z.string({ error: 'required, a hex transaction hash' }), xdrFormat });

/**
 * getTransaction: SUCCESS or FAILED with the transaction as its ledger holds it, or NOT_FOUND (never
 * seen, not applied yet, or older than the retention window). A fee bump is found by its own hash and
 * by its inner transaction's. Answered by the read side that lookups by hash reach (see ReadSides).
 */
export function getTransaction(params: unknown, { readSides, retentionLedgers }: RpcDependencies) {
  const { hash } = parseParams(params, schema);
  if (hash.length !== 64) throw invalidParams(`unexpected hash length (${hash.length})`);
  if (!/^[0-9a-fA-F]{64}$/.test(hash)) throw invalidParams('incorrect hash: encoding/hex: invalid byte');

  const view = readSides.lookupView();
  const range = ledgerRange(view, retentionLedgers);
  const tx = view.transaction(hash.toLowerCase());
  if (!tx || tx.ledger < range.oldest.sequence) return { ...retentionFields(range), status: 'NOT_FOUND', txHash: hash };
  return { ...retentionFields(range), ...transactionInfo(tx, hash) };
}

/** The found transaction's fields; `ledger` a number, `createdAt` a string of unix seconds, as stellar-rpc sends them. */
function transactionInfo(tx: StoredTransaction, txHash: string) {
  return {
    status: tx.successful ? 'SUCCESS' : 'FAILED',
    txHash,
    applicationOrder: applicationOrderOf(tx),
    feeBump: tx.feeBump !== undefined,
    envelopeXdr: tx.envelopeXdr,
    resultXdr: tx.resultXdr,
    resultMetaXdr: tx.resultMetaXdr,
    events: { transactionEventsXdr: [], contractEventsXdr: [] },
    ledger: tx.ledger,
    createdAt: String(tx.createdAt),
  };
}

/** The transaction's 1-based position in its ledger, kept in bits 12..31 of its paging token (a TOID). */
export const applicationOrderOf = (tx: StoredTransaction): number => Number((BigInt(tx.pagingToken) >> 12n) & 0xfffffn);
