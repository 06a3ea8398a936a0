import {
  Asset,
  FeeBumpTransaction,
  MuxedAccount,
  SignerKey,
  StrKey,
  TransactionBuilder,
  xdr,
  type Operation,
  type Transaction,
} from '@stellar/stellar-sdk';
import { baseAccountId } from './account-ids';
import { formatAmount } from './amounts';
import type { StoredTransaction } from './ledger-history';
import { toid } from './transaction-record';

/**
 * The operations Horizon's history holds, derived from the transactions the ledger recorded (their
 * envelope and result XDR), as Horizon's ingestion derives them: the same `details` its operation
 * processor writes, the same participants its account index keeps. Derived on demand, never
 * stored, so a history saved before this existed is read the same way.
 */

/** One operation as Horizon's history holds it. */
export interface OperationRecord {
  /** Its TOID (ledger, application order, 1-based index), which is also its paging token. */
  id: string;
  transaction: StoredTransaction;
  /** Its own source if it has one, else the transaction's: the G account... */
  sourceAccount: string;
  /** ...and the M address it was given as, if muxed. */
  sourceAccountMuxed?: string;
  /** Horizon's name (the XDR OperationType in snake case) and number. */
  type: string;
  typeI: number;
  /** The type's own fields in Horizon's JSON shape (`from`, `to`, `amount`, `asset_type`...). */
  details: Details;
  /** The G accounts whose /accounts/:id/operations list shows it (source first). */
  participants: string[];
}

type Details = Record<string, unknown>;

/** What a describer may look at: the operation decoded and raw, its source and its transaction. */
interface Described {
  op: Operation;
  raw: xdr.Operation;
  /** The source as given (G or M). */
  source: string;
  /** Its result, only when the transaction succeeded (Horizon reads results of successful ones only). */
  result?: xdr.OperationResultTr;
  /** The transaction's operations and this one's index in them. */
  operations: readonly Operation[];
  txSource: string;
  index: number;
}

interface Description {
  details: Details;
  /** Besides the source. */
  participants?: string[];
}

type Describer = (described: Described) => Description;

/** The operations of a transaction in a ledger, in their order. */
export function operationsOf(tx: StoredTransaction, networkPassphrase: string): OperationRecord[] {
  const envelope = TransactionBuilder.fromXDR(tx.envelopeXdr, networkPassphrase);
  const inner: Transaction = envelope instanceof FeeBumpTransaction ? envelope.innerTransaction : envelope;
  const raws = rawOperations(inner);
  const results = tx.successful ? operationResults(tx.resultXdr) : undefined;
  const [ledger, order] = placementOf(tx);
  return inner.operations.map((op, index) => {
    const raw = raws[index] as xdr.Operation;
    const source = op.source ?? inner.source;
    const kind = raw.body().switch();
    const describe: Describer = DESCRIBERS[kind.name] ?? (() => ({ details: {} }));
    const described = describe({
      op,
      raw,
      source,
      result: results?.[index]?.tr(),
      operations: inner.operations,
      txSource: inner.source,
      index,
    });
    const sourceAccount = baseAccountId(source);
    return {
      id: toid(ledger, order, index + 1),
      transaction: tx,
      sourceAccount,
      ...(source.startsWith('M') ? { sourceAccountMuxed: source } : {}),
      type: snakeCase(kind.name),
      typeI: kind.value,
      details: described.details,
      participants: [...new Set([sourceAccount, ...(described.participants ?? [])])],
    };
  });
}

/** Ledger and application order, kept in the transaction's paging token (a TOID). */
function placementOf(tx: StoredTransaction): [number, number] {
  const token = BigInt(tx.pagingToken);
  return [Number(token >> 32n), Number((token >> 12n) & 0xfffffn)];
}

function rawOperations(tx: Transaction): xdr.Operation[] {
  const envelope = tx.toEnvelope();
  return envelope.switch().name === 'envelopeTypeTxV0' ? envelope.v0().tx().operations() : envelope.v1().tx().operations();
}

function operationResults(resultXdr: string): xdr.OperationResult[] {
  const result = xdr.TransactionResult.fromXDR(resultXdr, 'base64').result();
  const name = result.switch().name;
  if (name === 'txFeeBumpInnerSuccess') return result.innerResultPair().result().result().results();
  return name === 'txSuccess' ? result.results() : [];
}

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** Horizon's addAccountAndMuxedAccountDetails: `prefix` the G account, `prefix_muxed(_id)` for an M address. */
function account(prefix: string, address: string): Details {
  if (!address.startsWith('M')) return { [prefix]: address };
  return {
    [prefix]: baseAccountId(address),
    [`${prefix}_muxed`]: address,
    // a string: a uint64 does not survive JavaScript's numbers
    [`${prefix}_muxed_id`]: MuxedAccount.fromAddress(address, '0').id(),
  };
}

/** Horizon's addAssetDetails: type, and code and issuer unless native. */
function asset(prefix: string, of: Asset): Details {
  if (of.isNative()) return { [`${prefix}asset_type`]: 'native' };
  return { [`${prefix}asset_type`]: of.getAssetType(), [`${prefix}asset_code`]: of.getCode(), [`${prefix}asset_issuer`]: of.getIssuer() };
}

/** SEP-11's canonical form, as Horizon writes `trustline_asset`. */
const canonical = (of: Asset) => (of.isNative() ? 'native' : `${of.getCode()}:${of.getIssuer()}`);

const ACCOUNT_FLAGS: readonly [number, string][] = [
  [1, 'auth_required'],
  [2, 'auth_revocable'],
  [4, 'auth_immutable'],
  [8, 'auth_clawback_enabled'],
];

/** Horizon's spelling, typo included. */
const TRUSTLINE_FLAGS: readonly [number, string][] = [
  [1, 'authorized'],
  [2, 'authorized_to_maintain_liabilites'],
  [4, 'clawback_enabled'],
];

/** `set_flags` / `set_flags_s` (or clear_): the known bits of a mask; Horizon leaves both out when none is. */
function flags(prefix: 'set' | 'clear', mask: number | null | undefined, names: readonly [number, string][]): Details {
  const known = names.filter(([bit]) => ((mask ?? 0) & bit) !== 0);
  if (known.length === 0) return {};
  return { [`${prefix}_flags`]: known.map(([bit]) => bit), [`${prefix}_flags_s`]: known.map(([, name]) => name) };
}

const path = (assets: readonly Asset[]) => assets.map((hop) => asset('', hop));

/**
 * What a successful path payment moved: with no offer crossed, what reached the destination
 * (`last`) is what the source paid too (Go's SendAmount falls back to it when no offer was crossed).
 */
function delivered(result: xdr.OperationResultTr | undefined, strictSend: boolean): string | undefined {
  if (!result) return undefined;
  const success = strictSend ? result.pathPaymentStrictSendResult().success() : result.pathPaymentStrictReceiveResult().success();
  return formatAmount(BigInt(success.last().amount().toString()));
}

const ZERO = formatAmount(0n);

/** Horizon's operation processor (Details and Participants), for the operations the sandbox applies. */
const DESCRIBERS: Partial<Record<string, Describer>> = {
  createAccount: ({ op, source }) => {
    const { destination, startingBalance } = op as Operation.CreateAccount;
    return { details: { starting_balance: startingBalance, ...account('funder', source), account: destination }, participants: [destination] };
  },

  payment: ({ op, source }) => {
    const payment = op as Operation.Payment;
    return {
      details: { ...asset('', payment.asset), ...account('from', source), ...account('to', payment.destination), amount: payment.amount },
      participants: [baseAccountId(payment.destination)],
    };
  },

  // on a failed transaction Horizon has no result to read: the amount it would give is 0
  pathPaymentStrictReceive: ({ op, source, result }) => {
    const payment = op as Operation.PathPaymentStrictReceive;
    return {
      details: {
        ...asset('', payment.destAsset),
        ...account('from', source),
        ...account('to', payment.destination),
        amount: payment.destAmount,
        path: path(payment.path),
        source_amount: delivered(result, false) ?? ZERO,
        source_max: payment.sendMax,
        ...asset('source_', payment.sendAsset),
      },
      participants: [baseAccountId(payment.destination)],
    };
  },

  pathPaymentStrictSend: ({ op, source, result }) => {
    const payment = op as Operation.PathPaymentStrictSend;
    return {
      details: {
        ...asset('', payment.destAsset),
        ...account('from', source),
        ...account('to', payment.destination),
        amount: delivered(result, true) ?? ZERO,
        path: path(payment.path),
        source_amount: payment.sendAmount,
        destination_min: payment.destMin,
        ...asset('source_', payment.sendAsset),
      },
      participants: [baseAccountId(payment.destination)],
    };
  },

  // from the raw operation: Horizon writes what was set, zeros included, and nothing else
  setOptions: ({ raw }) => {
    const op = raw.body().setOptionsOp();
    const signer = op.signer();
    const homeDomain = op.homeDomain()?.toString() ?? '';
    const inflationDest = op.inflationDest();
    const number = (name: string, value: number | null) => (value === null ? {} : { [name]: value });
    return {
      details: {
        ...(homeDomain ? { home_domain: homeDomain } : {}),
        ...(inflationDest ? { inflation_dest: StrKey.encodeEd25519PublicKey(inflationDest.ed25519()) } : {}),
        ...number('master_key_weight', op.masterWeight()),
        ...(signer ? { signer_key: SignerKey.encodeSignerKey(signer.key()), signer_weight: signer.weight() } : {}),
        ...flags('set', op.setFlags(), ACCOUNT_FLAGS),
        ...flags('clear', op.clearFlags(), ACCOUNT_FLAGS),
        ...number('low_threshold', op.lowThreshold()),
        ...number('med_threshold', op.medThreshold()),
        ...number('high_threshold', op.highThreshold()),
      },
    };
  },

  changeTrust: ({ op, source }) => {
    const { line, limit } = op as Operation.ChangeTrust;
    // the sandbox refuses liquidity pool shares, so the line is an asset
    const trusted = line as Asset;
    return { details: { ...asset('', trusted), limit, trustee: trusted.getIssuer(), ...account('trustor', source) } };
  },

  accountMerge: ({ op, source }) => {
    const { destination } = op as Operation.AccountMerge;
    return { details: { ...account('account', source), ...account('into', destination) }, participants: [baseAccountId(destination)] };
  },

  beginSponsoringFutureReserves: ({ op }) => {
    const { sponsoredId } = op as Operation.BeginSponsoringFutureReserves;
    return { details: { sponsored_id: sponsoredId }, participants: [sponsoredId] };
  },

  // the begin that this end closes, found only in a successful transaction (Horizon trusts no other)
  endSponsoringFutureReserves: ({ source, result, operations, txSource, index }) => {
    if (!result) return { details: {} };
    const sponsored = baseAccountId(source);
    for (let at = index - 1; at >= 0; at--) {
      const begin = operations[at];
      if (begin?.type === 'beginSponsoringFutureReserves' && begin.sponsoredId === sponsored) {
        const sponsor = begin.source ?? txSource;
        return { details: account('begin_sponsor', sponsor), participants: [baseAccountId(sponsor)] };
      }
    }
    return { details: {} };
  },

  revokeSponsorship: ({ op, raw }) => revokeSponsorship(op, raw),

  clawback: ({ op }) => {
    const clawback = op as Operation.Clawback;
    return {
      details: { ...asset('', clawback.asset), ...account('from', clawback.from), amount: clawback.amount },
      participants: [baseAccountId(clawback.from)],
    };
  },

  setTrustLineFlags: ({ op, raw }) => {
    const { trustor, asset: line } = op as Operation.SetTrustLineFlags;
    const masks = raw.body().setTrustLineFlagsOp();
    return {
      details: {
        ...asset('', line),
        trustor,
        ...flags('set', masks.setFlags(), TRUSTLINE_FLAGS),
        ...flags('clear', masks.clearFlags(), TRUSTLINE_FLAGS),
      },
      participants: [trustor],
    };
  },
};

/** Horizon's addLedgerKeyDetails (or the signer's), with the accounts the key names as participants. */
function revokeSponsorship(op: Operation, raw: xdr.Operation): Description {
  // stellar-base decodes each arm under its own type name, though its typings say 'revokeSponsorship'
  const arm: string = op.type;
  switch (arm) {
    case 'revokeAccountSponsorship': {
      const { account: owner } = op as Operation.RevokeAccountSponsorship;
      return { details: { account_id: owner }, participants: [owner] };
    }
    case 'revokeTrustlineSponsorship': {
      const { account: owner, asset: line } = op as Operation.RevokeTrustlineSponsorship;
      const trusted = line instanceof Asset ? { trustline_asset: canonical(line) } : { trustline_liquidity_pool_id: line.getLiquidityPoolId() };
      return { details: { trustline_account_id: owner, ...trusted }, participants: [owner] };
    }
    case 'revokeOfferSponsorship': {
      const { offerId, seller } = op as Operation.RevokeOfferSponsorship;
      return { details: { offer_id: offerId }, participants: [seller] };
    }
    case 'revokeDataSponsorship': {
      const { account: owner, name } = op as Operation.RevokeDataSponsorship;
      return { details: { data_account_id: owner, data_name: name }, participants: [owner] };
    }
    case 'revokeClaimableBalanceSponsorship':
      return { details: { claimable_balance_id: (op as Operation.RevokeClaimableBalanceSponsorship).balanceId } };
    case 'revokeLiquidityPoolSponsorship':
      return { details: { liquidity_pool_id: (op as Operation.RevokeLiquidityPoolSponsorship).liquidityPoolId } };
    case 'revokeSignerSponsorship': {
      const { account: owner } = op as Operation.RevokeSignerSponsorship;
      const signer = raw.body().revokeSponsorshipOp().signer();
      return {
        details: { signer_account_id: owner, signer_key: SignerKey.encodeSignerKey(signer.signerKey()) },
        // not the signer: any account can be made a signer, and that must not spam its history
        participants: [owner],
      };
    }
    default:
      return { details: {} };
  }
}
