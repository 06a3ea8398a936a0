import { z } from 'zod';
import type { RpcDependencies } from '../context';
import { invalidParams } from '../json-rpc';
import { parseParams, xdrFormat } from '../params';
import { ledgerRange, retentionFields } from '../retention';
import { transactionDetails } from '../transaction-details';

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
  // createdAt a string of unix seconds here (a number in getTransactions), as stellar-rpc sends them
  return { ...retentionFields(range), ...transactionDetails(tx, hash), createdAt: String(tx.createdAt) };
}
