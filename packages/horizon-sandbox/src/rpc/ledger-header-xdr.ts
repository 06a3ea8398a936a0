import { xdr } from '@stellar/stellar-sdk';
import { BASE_RESERVE, PROTOCOL_VERSION } from '../ledger-rules';
import { ROOT_BALANCE, type LedgerHeader } from '../ledger-state';

const ZERO_HASH = Buffer.alloc(32);
const int64 = (value: bigint | string) => xdr.Int64.fromString(value.toString());

/**
 * The ledger's header as XDR, for getLatestLedger's headerXdr. The sandbox has no bucket list, no
 * transaction-set hashes and no skip list: those hashes are zero; the rest is the ledger's own.
 */
export function ledgerHeaderXdr(header: LedgerHeader): xdr.LedgerHeader {
  return new xdr.LedgerHeader({
    ledgerVersion: PROTOCOL_VERSION,
    previousLedgerHash: Buffer.from(header.previousHash, 'hex'),
    scpValue: new xdr.StellarValue({
      txSetHash: ZERO_HASH,
      closeTime: xdr.Uint64.fromString(String(header.closedAt)),
      upgrades: [],
      ext: xdr.StellarValueExt.stellarValueBasic(),
    }),
    txSetResultHash: ZERO_HASH,
    bucketListHash: ZERO_HASH,
    ledgerSeq: header.sequence,
    totalCoins: int64(ROOT_BALANCE),
    feePool: int64(header.feePool),
    inflationSeq: 0,
    idPool: xdr.Uint64.fromString('0'),
    baseFee: Number(header.baseFee),
    baseReserve: Number(BASE_RESERVE),
    maxTxSetSize: header.maxTxSetSize,
    skipList: [ZERO_HASH, ZERO_HASH, ZERO_HASH, ZERO_HASH],
    ext: new xdr.LedgerHeaderExt(0),
  });
}

/** getLatestLedger's metadataXdr: a LedgerCloseMeta (v0) with the header and no transaction processing. */
export function ledgerCloseMetaXdr(header: LedgerHeader): xdr.LedgerCloseMeta {
  const meta = new xdr.LedgerCloseMetaV0({
    ledgerHeader: new xdr.LedgerHeaderHistoryEntry({
      hash: Buffer.from(header.hash, 'hex'),
      header: ledgerHeaderXdr(header),
      ext: new xdr.LedgerHeaderHistoryEntryExt(0),
    }),
    txSet: new xdr.TransactionSet({ previousLedgerHash: Buffer.from(header.previousHash, 'hex'), txes: [] }),
    txProcessing: [],
    upgradesProcessing: [],
    scpInfo: [],
  });
  return new xdr.LedgerCloseMeta(0, meta);
}
