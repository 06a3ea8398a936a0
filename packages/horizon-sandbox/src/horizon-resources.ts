import { MuxedAccount } from '@stellar/stellar-sdk';
import { formatAmount } from './amounts';
import type { StoredTransaction } from './ledger-history';
import {
  AUTH_CLAWBACK_ENABLED_FLAG,
  AUTH_IMMUTABLE_FLAG,
  AUTH_REQUIRED_FLAG,
  AUTH_REVOCABLE_FLAG,
  BASE_RESERVE,
  PROTOCOL_VERSION,
  TRUSTLINE_AUTHORIZED_FLAG,
  TRUSTLINE_AUTH_FLAGS,
  TRUSTLINE_CLAWBACK_ENABLED_FLAG,
} from './ledger-rules';
import { ROOT_BALANCE, type AccountEntry, type LedgerHeader } from './ledger-state';
import type { OperationRecord } from './operation-records';

/**
 * Horizon's JSON shapes (HorizonApi in stellar-sdk is the reference for field names). `base` is the
 * absolute URL the router is mounted at, so links work under any prefix.
 */

const ZERO = '0.0000000';

export const isoTime = (unixSeconds: number | string): string =>
  new Date(Number(unixSeconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

const link = (href: string) => ({ href });
const templated = (href: string) => ({ href, templated: true });

/** A resource's links to its paged sub-collections, as Horizon writes them (`{?cursor,limit,order}`). */
function pagedLinks<Name extends string>(self: string, names: readonly Name[]): Record<Name, ReturnType<typeof templated>> {
  return Object.fromEntries(names.map((name) => [name, templated(`${self}/${name}{?cursor,limit,order}`)])) as Record<Name, ReturnType<typeof templated>>;
}

export function accountResource(account: Readonly<AccountEntry>, base: string) {
  const self = `${base}/accounts/${account.id}`;
  const balances: object[] = [...account.trustlines.values()].map((line) => ({
    balance: formatAmount(line.balance),
    limit: formatAmount(line.limit),
    buying_liabilities: ZERO,
    selling_liabilities: ZERO,
    ...(line.sponsor ? { sponsor: line.sponsor } : {}),
    last_modified_ledger: line.lastModifiedLedger,
    // as Horizon derives them: a fully authorized line may also maintain liabilities
    is_authorized: (line.flags & TRUSTLINE_AUTHORIZED_FLAG) !== 0,
    is_authorized_to_maintain_liabilities: (line.flags & TRUSTLINE_AUTH_FLAGS) !== 0,
    is_clawback_enabled: (line.flags & TRUSTLINE_CLAWBACK_ENABLED_FLAG) !== 0,
    asset_type: line.code.length <= 4 ? 'credit_alphanum4' : 'credit_alphanum12',
    asset_code: line.code,
    asset_issuer: line.issuer,
  }));
  // Horizon lists the native balance last
  balances.push({
    balance: formatAmount(account.balance),
    buying_liabilities: ZERO,
    selling_liabilities: ZERO,
    asset_type: 'native',
  });
  return {
    _links: {
      self: link(self),
      ...pagedLinks(self, ['transactions', 'operations', 'payments', 'effects', 'offers', 'trades']),
      // the SDK copies `data` to `data_attr` only when a `data` link exists, and its memo-required
      // check reads data_attr: without this link every submitTransaction with a payment would throw
      data: templated(`${self}/data/{key}`),
    },
    id: account.id,
    account_id: account.id,
    sequence: account.sequence.toString(),
    sequence_ledger: account.sequenceLedger,
    sequence_time: String(account.sequenceTime),
    subentry_count: account.subentryCount,
    ...(account.homeDomain ? { home_domain: account.homeDomain } : {}),
    ...(account.inflationDest ? { inflation_destination: account.inflationDest } : {}),
    last_modified_ledger: account.lastModifiedLedger,
    last_modified_time: isoTime(account.lastModifiedTime),
    thresholds: {
      low_threshold: account.thresholds.low,
      med_threshold: account.thresholds.med,
      high_threshold: account.thresholds.high,
    },
    flags: {
      auth_required: (account.flags & AUTH_REQUIRED_FLAG) !== 0,
      auth_revocable: (account.flags & AUTH_REVOCABLE_FLAG) !== 0,
      auth_immutable: (account.flags & AUTH_IMMUTABLE_FLAG) !== 0,
      auth_clawback_enabled: (account.flags & AUTH_CLAWBACK_ENABLED_FLAG) !== 0,
    },
    balances,
    signers: [
      ...account.signers.map((signer) => ({
        weight: signer.weight,
        key: signer.key,
        type: 'ed25519_public_key',
        ...(signer.sponsor ? { sponsor: signer.sponsor } : {}),
      })),
      { weight: account.masterWeight, key: account.id, type: 'ed25519_public_key' },
    ],
    data: {},
    num_sponsoring: account.numSponsoring,
    num_sponsored: account.numSponsored,
    // Horizon leaves `sponsor` out, rather than null, for an account paying its own reserve
    ...(account.sponsor ? { sponsor: account.sponsor } : {}),
    paging_token: account.id,
  };
}

/**
 * `requestedHash`: Horizon answers a fee bump under its inner hash as well, and then names the
 * record by the hash asked for and shows the inner transaction's signatures at the top level.
 */
export function transactionResource(tx: StoredTransaction, base: string, requestedHash = tx.hash) {
  const self = `${base}/transactions/${requestedHash}`;
  const signatures = tx.inner && requestedHash !== tx.hash ? tx.inner.signatures : tx.signatures;
  const timebounds = tx.preconditions?.timebounds;
  return {
    _links: {
      self: link(self),
      account: link(`${base}/accounts/${tx.sourceAccount}`),
      ledger: link(`${base}/ledgers/${tx.ledger}`),
      ...pagedLinks(self, ['operations', 'effects']),
      precedes: link(`${base}/transactions?order=asc&cursor=${tx.pagingToken}`),
      succeeds: link(`${base}/transactions?order=desc&cursor=${tx.pagingToken}`),
      transaction: link(self),
    },
    id: requestedHash,
    paging_token: tx.pagingToken,
    successful: tx.successful,
    hash: requestedHash,
    ledger: tx.ledger,
    created_at: isoTime(tx.createdAt),
    source_account: tx.sourceAccount,
    source_account_sequence: tx.sourceAccountSequence,
    fee_account: tx.feeAccount,
    fee_charged: tx.feeCharged,
    max_fee: tx.maxFee,
    operation_count: tx.operationCount,
    envelope_xdr: tx.envelopeXdr,
    result_xdr: tx.resultXdr,
    result_meta_xdr: tx.resultMetaXdr,
    fee_meta_xdr: tx.feeMetaXdr,
    memo_type: tx.memoType,
    ...(tx.memo !== undefined ? { memo: tx.memo } : {}),
    ...(tx.memoBytes !== undefined ? { memo_bytes: tx.memoBytes } : {}),
    signatures,
    ...(timebounds ? { valid_after: isoTime(timebounds.min_time) } : {}),
    ...(timebounds?.max_time ? { valid_before: isoTime(timebounds.max_time) } : {}),
    ...(tx.preconditions ? { preconditions: tx.preconditions } : {}),
    ...(tx.feeBump ? { fee_bump_transaction: tx.feeBump } : {}),
    ...(tx.inner ? { inner_transaction: { hash: tx.inner.hash, signatures: tx.inner.signatures, max_fee: tx.inner.maxFee } } : {}),
  };
}

/**
 * An operation as Horizon answers it in /operations, /accounts/:id/operations and /payments: the
 * common fields, then its type's own. `joinTransaction` embeds the transaction resource
 * (join=transactions), named by the hash its transaction was applied under (a fee bump's own).
 */
export function operationResource(record: OperationRecord, base: string, joinTransaction = false) {
  const { id, transaction } = record;
  return {
    _links: {
      self: link(`${base}/operations/${id}`),
      transaction: link(`${base}/transactions/${transaction.hash}`),
      effects: link(`${base}/operations/${id}/effects`),
      succeeds: link(`${base}/effects?order=desc&cursor=${id}`),
      precedes: link(`${base}/effects?order=asc&cursor=${id}`),
    },
    id,
    paging_token: id,
    transaction_successful: transaction.successful,
    source_account: record.sourceAccount,
    ...(record.sourceAccountMuxed
      ? { source_account_muxed: record.sourceAccountMuxed, source_account_muxed_id: MuxedAccount.fromAddress(record.sourceAccountMuxed, '0').id() }
      : {}),
    type: record.type,
    type_i: record.typeI,
    created_at: isoTime(transaction.createdAt),
    transaction_hash: transaction.hash,
    ...(joinTransaction ? { transaction: transactionResource(transaction, base) } : {}),
    ...record.details,
  };
}

export function ledgerResource(ledger: LedgerHeader, base: string) {
  const self = `${base}/ledgers/${ledger.sequence}`;
  return {
    _links: {
      self: link(self),
      ...pagedLinks(self, ['transactions', 'operations', 'payments', 'effects']),
    },
    id: ledger.hash,
    paging_token: (BigInt(ledger.sequence) << 32n).toString(),
    hash: ledger.hash,
    ...(ledger.sequence > 1 ? { prev_hash: ledger.previousHash } : {}),
    sequence: ledger.sequence,
    successful_transaction_count: ledger.successfulTransactionCount,
    failed_transaction_count: ledger.failedTransactionCount,
    operation_count: ledger.operationCount,
    tx_set_operation_count: ledger.txSetOperationCount,
    closed_at: isoTime(ledger.closedAt),
    // fees leave circulation into the fee pool; no inflation, so nothing else changes the total
    total_coins: formatAmount(ROOT_BALANCE - BigInt(ledger.feePool)),
    fee_pool: formatAmount(BigInt(ledger.feePool)),
    // the header's base fee: during surge pricing it stays the minimum, as on Horizon
    base_fee_in_stroops: Number(ledger.baseFee),
    base_reserve_in_stroops: Number(BASE_RESERVE),
    max_tx_set_size: ledger.maxTxSetSize,
    protocol_version: PROTOCOL_VERSION,
  };
}

/**
 * `latest` is the newest ingested ledger; `coreLatest` core's, ahead of it while ingestion lags;
 * `elderLedger` the oldest its history still holds.
 */
export function rootResource(latest: LedgerHeader, elderLedger: number, coreLatest: number, networkPassphrase: string, base: string) {
  return {
    _links: {
      account: templated(`${base}/accounts/{account_id}`),
      fee_stats: link(`${base}/fee_stats`),
      friendbot: templated(`${base}/friendbot{?addr}`),
      ledger: templated(`${base}/ledgers/{sequence}`),
      ledgers: templated(`${base}/ledgers{?cursor,limit,order}`),
      operation: templated(`${base}/operations/{id}`),
      operations: templated(`${base}/operations{?cursor,limit,order,include_failed}`),
      self: link(`${base}/`),
      transaction: templated(`${base}/transactions/{hash}`),
    },
    horizon_version: 'wallet-sandbox-1.0.0',
    core_version: 'wallet-sandbox-ledger',
    ingest_latest_ledger: latest.sequence,
    history_latest_ledger: latest.sequence,
    history_latest_ledger_closed_at: isoTime(latest.closedAt),
    history_elder_ledger: elderLedger,
    core_latest_ledger: coreLatest,
    network_passphrase: networkPassphrase,
    current_protocol_version: PROTOCOL_VERSION,
    supported_protocol_version: PROTOCOL_VERSION,
    core_supported_protocol_version: PROTOCOL_VERSION,
  };
}
