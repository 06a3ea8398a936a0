import { z } from 'zod';
import type { StoredTransaction } from '../../ledger-history';
import type { LedgerReadView } from '../../ledger-read-view';
import { toid } from '../../transaction-record';
import type { RpcDependencies } from '../context';
import { INVALID_REQUEST, RpcError, invalidParams } from '../json-rpc';
import { parseParams, xdrFormat } from '../params';
import { ledgerRange, type LedgerRange } from '../retention';
import { transactionDetails } from '../transaction-details';

/** stellar-rpc's defaults: default-transactions-limit and max-transactions-limit. */
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

const uint32 = z.number().int().min(0).max(0xffffffff);

const schema = z.object({
  startLedger: uint32.optional(),
  pagination: z.object({ cursor: z.string().optional(), limit: uint32.optional() }).nullish(),
  xdrFormat,
});

type Request = z.infer<typeof schema>;

/** Where the scan begins: a ledger and the application order (1-based) of the first transaction to read there. */
interface Start {
  ledger: number;
  transactionOrder: number;
}

/**
 * getTransactions, as stellar-rpc's transactionsRPCHandler answers it: the transactions of every
 * ledger from `startLedger` (or from just after `pagination.cursor`) through the answering
 * instance's latest ledger, in application order, failed ones included, until `limit` (50; at most
 * 200) are collected. Answered by the read side every read but lookups by hash reaches: a lagging
 * one shows only the ledgers it has ingested, and its range ends there.
 *
 * The cursor is stellar-rpc's, quirks included: the TOID of the last ledger scanned, with the
 * application order of the last transaction read in it (0 if none was) and operation order 1; and
 * "0" when nothing was scanned at all (a cursor at or past the latest ledger). A page that ends
 * exactly at a ledger's last transaction says so in its cursor, and the next page goes on from there.
 */
export function getTransactions(params: unknown, { readSides, retentionLedgers }: RpcDependencies) {
  const view = readSides.view();
  const range = ledgerRange(view, retentionLedgers);
  const request = parseParams(params, schema);
  validate(request, range);
  const { start, limit } = pagination(request);

  const transactions: ReturnType<typeof transactionInfo>[] = [];
  let cursor = '0';
  for (let ledger = start.ledger; ledger <= range.latest.sequence; ledger++) {
    if (ledger < 0) throw invalidParams('cursor ledger sequence cannot be negative');
    const inLedger = transactionsOf(view, range, ledger);
    const first = ledger === start.ledger ? start.transactionOrder : 1;
    let lastRead = 0;
    for (let order = first; order <= inLedger.length; order++) {
      lastRead = order;
      transactions.push(transactionInfo(inLedger[order - 1] as StoredTransaction));
      if (transactions.length >= limit) break;
    }
    cursor = toid(ledger, lastRead, 1);
    if (transactions.length >= limit) break;
  }

  return {
    transactions,
    latestLedger: range.latest.sequence,
    latestLedgerCloseTimestamp: range.latest.closedAt,
    oldestLedger: range.oldest.sequence,
    oldestLedgerCloseTimestamp: range.oldest.closedAt,
    cursor,
  };
}

/**
 * go-stellar-sdk's GetTransactionsRequest.IsValid (ValidatePagination), with its messages; every
 * refusal is -32600. A cursor is not checked against the range here: its ledger is (see below).
 */
function validate(request: Request, { oldest, latest }: LedgerRange): void {
  const startLedger = request.startLedger ?? 0;
  const cursor = request.pagination?.cursor ?? '';
  const refuse = (message: string) => new RpcError(INVALID_REQUEST, message);
  const outOfRange = () =>
    refuse(
      `start ledger (${startLedger}) must be between the oldest ledger: ${oldest.sequence} and the latest ledger: ${latest.sequence} for this rpc instance`,
    );
  const inRange = startLedger >= oldest.sequence && startLedger <= latest.sequence;
  if (!request.pagination) {
    if (!inRange) throw outOfRange();
    return;
  }
  if (cursor !== '') {
    if (startLedger !== 0) throw refuse(`startLedger (${startLedger}) and cursor (${cursor}) cannot both be set`);
  } else if (!inRange) {
    throw outOfRange();
  }
  if ((request.pagination.limit ?? 0) > MAX_LIMIT) throw refuse(`limit must not exceed ${MAX_LIMIT}`);
}

/** initializePagination: from the start ledger's first transaction, or the one after the cursor's. */
function pagination(request: Request): { start: Start; limit: number } {
  const limit = request.pagination?.limit || DEFAULT_LIMIT;
  const cursor = request.pagination?.cursor ?? '';
  if (cursor === '') return { start: { ledger: request.startLedger ?? 0, transactionOrder: 1 }, limit };
  const id = parseInt64(cursor);
  // toid.Parse: the ledger is the high 32 bits, signed
  return { start: { ledger: Number(BigInt.asIntN(32, id >> 32n)), transactionOrder: Number((id >> 12n) & 0xfffffn) + 1 }, limit };
}

/** Go's strconv.ParseInt(text, 10, 64), with its errors (-32602). */
function parseInt64(text: string): bigint {
  if (!/^[+-]?\d+$/.test(text)) throw invalidParams(`strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = BigInt(text);
  if (value < -(2n ** 63n) || value >= 2n ** 63n) throw invalidParams(`strconv.ParseInt: parsing ${JSON.stringify(text)}: value out of range`);
  return value;
}

/**
 * A ledger's transactions as the instance's ledger store has them. One it does not hold (older than
 * its retention window) is -32602, as stellar-rpc answers a cursor into reaped history.
 */
function transactionsOf(view: LedgerReadView, { oldest }: LedgerRange, ledger: number): readonly StoredTransaction[] {
  const closed = ledger >= oldest.sequence ? view.closedLedger(ledger) : undefined;
  if (!closed) throw invalidParams(`database does not contain metadata for ledger: ${ledger}`);
  return closed.transactions;
}

/** stellar-rpc's TransactionInfo: createdAt is the ledger's close time as a number (unlike getTransaction's string). */
function transactionInfo(tx: StoredTransaction) {
  return { ...transactionDetails(tx), createdAt: tx.createdAt };
}
