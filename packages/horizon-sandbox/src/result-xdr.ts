import { Keypair, xdr } from '@stellar/stellar-sdk';
import type { PaymentDelivered } from './operations/operation-context';
import { isRevokeSponsorshipType } from './operations/revoke-sponsorship';

/**
 * Results are modelled with Horizon's code strings (what clients read in `result_codes`) and turned
 * into a real TransactionResult XDR here, so `result_xdr` and `result_codes` can never disagree.
 */

export type TransactionCode =
  | 'tx_success'
  | 'tx_failed'
  | 'tx_too_early'
  | 'tx_too_late'
  | 'tx_missing_operation'
  | 'tx_bad_seq'
  | 'tx_bad_auth'
  | 'tx_insufficient_balance'
  | 'tx_no_source_account'
  | 'tx_insufficient_fee'
  | 'tx_bad_auth_extra'
  | 'tx_internal_error'
  | 'tx_not_supported'
  | 'tx_bad_min_seq_age_or_gap'
  | 'tx_malformed'
  | 'tx_bad_sponsorship';

export type FeeBumpCode = 'tx_fee_bump_inner_success' | 'tx_fee_bump_inner_failed';

/** `kind` is the SDK's operation type name (createAccount, payment...). */
export interface OperationOutcome {
  kind: string;
  code: string;
  /** account_merge's success result carries the XLM the merged account held. */
  sourceAccountBalance?: bigint;
  /** A path payment's success result carries what reached the destination. */
  last?: PaymentDelivered;
}

export interface InnerResult {
  code: TransactionCode;
  feeCharged: bigint;
  /** Present for tx_success and tx_failed only, one per operation. */
  operations?: OperationOutcome[];
}

export interface TransactionResultModel extends InnerResult {
  /** Set for a fee-bump envelope: the outer code wraps the inner transaction's result. */
  feeBump?: { code: FeeBumpCode; innerHash: Buffer; inner: InnerResult };
}

type VoidResult<T> = Record<string, () => T>;

const CREATE_ACCOUNT: VoidResult<xdr.CreateAccountResult> = {
  op_success: () => xdr.CreateAccountResult.createAccountSuccess(),
  op_malformed: () => xdr.CreateAccountResult.createAccountMalformed(),
  op_underfunded: () => xdr.CreateAccountResult.createAccountUnderfunded(),
  op_low_reserve: () => xdr.CreateAccountResult.createAccountLowReserve(),
  op_already_exists: () => xdr.CreateAccountResult.createAccountAlreadyExist(),
};

const PAYMENT: VoidResult<xdr.PaymentResult> = {
  op_success: () => xdr.PaymentResult.paymentSuccess(),
  op_malformed: () => xdr.PaymentResult.paymentMalformed(),
  op_underfunded: () => xdr.PaymentResult.paymentUnderfunded(),
  op_src_no_trust: () => xdr.PaymentResult.paymentSrcNoTrust(),
  op_src_not_authorized: () => xdr.PaymentResult.paymentSrcNotAuthorized(),
  op_no_destination: () => xdr.PaymentResult.paymentNoDestination(),
  op_no_trust: () => xdr.PaymentResult.paymentNoTrust(),
  op_not_authorized: () => xdr.PaymentResult.paymentNotAuthorized(),
  op_line_full: () => xdr.PaymentResult.paymentLineFull(),
  op_no_issuer: () => xdr.PaymentResult.paymentNoIssuer(),
};

const CHANGE_TRUST: VoidResult<xdr.ChangeTrustResult> = {
  op_success: () => xdr.ChangeTrustResult.changeTrustSuccess(),
  op_malformed: () => xdr.ChangeTrustResult.changeTrustMalformed(),
  op_no_issuer: () => xdr.ChangeTrustResult.changeTrustNoIssuer(),
  op_invalid_limit: () => xdr.ChangeTrustResult.changeTrustInvalidLimit(),
  op_low_reserve: () => xdr.ChangeTrustResult.changeTrustLowReserve(),
  op_self_not_allowed: () => xdr.ChangeTrustResult.changeTrustSelfNotAllowed(),
};

const SET_OPTIONS: VoidResult<xdr.SetOptionsResult> = {
  op_success: () => xdr.SetOptionsResult.setOptionsSuccess(),
  op_low_reserve: () => xdr.SetOptionsResult.setOptionsLowReserve(),
  op_too_many_signers: () => xdr.SetOptionsResult.setOptionsTooManySigners(),
  op_bad_flags: () => xdr.SetOptionsResult.setOptionsBadFlags(),
  op_invalid_inflation: () => xdr.SetOptionsResult.setOptionsInvalidInflation(),
  op_cant_change: () => xdr.SetOptionsResult.setOptionsCantChange(),
  op_unknown_flag: () => xdr.SetOptionsResult.setOptionsUnknownFlag(),
  op_threshold_out_of_range: () => xdr.SetOptionsResult.setOptionsThresholdOutOfRange(),
  op_bad_signer: () => xdr.SetOptionsResult.setOptionsBadSigner(),
  op_invalid_home_domain: () => xdr.SetOptionsResult.setOptionsInvalidHomeDomain(),
  op_auth_revocable_required: () => xdr.SetOptionsResult.setOptionsAuthRevocableRequired(),
};

const BEGIN_SPONSORING: VoidResult<xdr.BeginSponsoringFutureReservesResult> = {
  op_success: () => xdr.BeginSponsoringFutureReservesResult.beginSponsoringFutureReservesSuccess(),
  op_malformed: () => xdr.BeginSponsoringFutureReservesResult.beginSponsoringFutureReservesMalformed(),
  op_already_sponsored: () => xdr.BeginSponsoringFutureReservesResult.beginSponsoringFutureReservesAlreadySponsored(),
  op_recursive: () => xdr.BeginSponsoringFutureReservesResult.beginSponsoringFutureReservesRecursive(),
};

const END_SPONSORING: VoidResult<xdr.EndSponsoringFutureReservesResult> = {
  op_success: () => xdr.EndSponsoringFutureReservesResult.endSponsoringFutureReservesSuccess(),
  op_not_sponsored: () => xdr.EndSponsoringFutureReservesResult.endSponsoringFutureReservesNotSponsored(),
};

const REVOKE_SPONSORSHIP: VoidResult<xdr.RevokeSponsorshipResult> = {
  op_success: () => xdr.RevokeSponsorshipResult.revokeSponsorshipSuccess(),
  op_does_not_exist: () => xdr.RevokeSponsorshipResult.revokeSponsorshipDoesNotExist(),
  op_not_sponsor: () => xdr.RevokeSponsorshipResult.revokeSponsorshipNotSponsor(),
  op_low_reserve: () => xdr.RevokeSponsorshipResult.revokeSponsorshipLowReserve(),
  op_only_transferable: () => xdr.RevokeSponsorshipResult.revokeSponsorshipOnlyTransferable(),
  op_malformed: () => xdr.RevokeSponsorshipResult.revokeSponsorshipMalformed(),
};

const CLAWBACK: VoidResult<xdr.ClawbackResult> = {
  op_success: () => xdr.ClawbackResult.clawbackSuccess(),
  op_malformed: () => xdr.ClawbackResult.clawbackMalformed(),
  op_not_clawback_enabled: () => xdr.ClawbackResult.clawbackNotClawbackEnabled(),
  op_no_trust: () => xdr.ClawbackResult.clawbackNoTrust(),
  op_underfunded: () => xdr.ClawbackResult.clawbackUnderfunded(),
};

/** Horizon names SET_TRUST_LINE_FLAGS_NO_TRUST_LINE `op_no_trust`, like payment's missing line. */
const SET_TRUST_LINE_FLAGS: VoidResult<xdr.SetTrustLineFlagsResult> = {
  op_success: () => xdr.SetTrustLineFlagsResult.setTrustLineFlagsSuccess(),
  op_malformed: () => xdr.SetTrustLineFlagsResult.setTrustLineFlagsMalformed(),
  op_no_trust: () => xdr.SetTrustLineFlagsResult.setTrustLineFlagsNoTrustLine(),
  op_cant_revoke: () => xdr.SetTrustLineFlagsResult.setTrustLineFlagsCantRevoke(),
  op_invalid_state: () => xdr.SetTrustLineFlagsResult.setTrustLineFlagsInvalidState(),
  op_low_reserve: () => xdr.SetTrustLineFlagsResult.setTrustLineFlagsLowReserve(),
};

/** account_merge's failures; its success carries a balance, so it is built apart. */
const ACCOUNT_MERGE_FAILURES: VoidResult<xdr.AccountMergeResult> = {
  op_malformed: () => xdr.AccountMergeResult.accountMergeMalformed(),
  op_no_account: () => xdr.AccountMergeResult.accountMergeNoAccount(),
  op_immutable_set: () => xdr.AccountMergeResult.accountMergeImmutableSet(),
  op_has_sub_entries: () => xdr.AccountMergeResult.accountMergeHasSubEntries(),
  op_seqnum_too_far: () => xdr.AccountMergeResult.accountMergeSeqnumTooFar(),
  op_dest_full: () => xdr.AccountMergeResult.accountMergeDestFull(),
  op_is_sponsor: () => xdr.AccountMergeResult.accountMergeIsSponsor(),
};

function accountMergeResult({ code, sourceAccountBalance }: OperationOutcome): xdr.AccountMergeResult {
  if (code !== 'op_success') return pick(ACCOUNT_MERGE_FAILURES, code, 'accountMerge');
  // an operation after a failed one was never applied and keeps the zeroed default, as in stellar-core
  return xdr.AccountMergeResult.accountMergeSuccess(xdr.Int64.fromString((sourceAccountBalance ?? 0n).toString()));
}

/** The failures of a path payment; its success carries the offers crossed and what was delivered. */
const PATH_PAYMENT_STRICT_RECEIVE_FAILURES: VoidResult<xdr.PathPaymentStrictReceiveResult> = {
  op_malformed: () => xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveMalformed(),
  op_underfunded: () => xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveUnderfunded(),
  op_src_no_trust: () => xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveSrcNoTrust(),
  op_src_not_authorized: () => xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveSrcNotAuthorized(),
  op_no_destination: () => xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveNoDestination(),
  op_no_trust: () => xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveNoTrust(),
  op_not_authorized: () => xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveNotAuthorized(),
  op_line_full: () => xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveLineFull(),
  op_too_few_offers: () => xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveTooFewOffers(),
  op_over_source_max: () => xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveOverSendmax(),
};

const PATH_PAYMENT_STRICT_SEND_FAILURES: VoidResult<xdr.PathPaymentStrictSendResult> = {
  op_malformed: () => xdr.PathPaymentStrictSendResult.pathPaymentStrictSendMalformed(),
  op_underfunded: () => xdr.PathPaymentStrictSendResult.pathPaymentStrictSendUnderfunded(),
  op_src_no_trust: () => xdr.PathPaymentStrictSendResult.pathPaymentStrictSendSrcNoTrust(),
  op_src_not_authorized: () => xdr.PathPaymentStrictSendResult.pathPaymentStrictSendSrcNotAuthorized(),
  op_no_destination: () => xdr.PathPaymentStrictSendResult.pathPaymentStrictSendNoDestination(),
  op_no_trust: () => xdr.PathPaymentStrictSendResult.pathPaymentStrictSendNoTrust(),
  op_not_authorized: () => xdr.PathPaymentStrictSendResult.pathPaymentStrictSendNotAuthorized(),
  op_line_full: () => xdr.PathPaymentStrictSendResult.pathPaymentStrictSendLineFull(),
  op_too_few_offers: () => xdr.PathPaymentStrictSendResult.pathPaymentStrictSendTooFewOffers(),
  op_under_dest_min: () => xdr.PathPaymentStrictSendResult.pathPaymentStrictSendUnderDestmin(),
};

/**
 * `last` as core writes it. No offer is ever crossed (the sandbox has no order book), so `offers` is
 * empty. An operation after a failed one was never applied and keeps the zeroed default, as in
 * stellar-core: an all-zero account, the native asset, 0.
 */
function simplePaymentResult(last: PaymentDelivered | undefined): { offers: xdr.ClaimAtom[]; last: xdr.SimplePaymentResult } {
  const destination = last ? Keypair.fromPublicKey(last.destination).xdrAccountId() : xdr.PublicKey.publicKeyTypeEd25519(Buffer.alloc(32));
  return {
    offers: [],
    last: new xdr.SimplePaymentResult({
      destination,
      asset: last ? last.asset.toXDRObject() : xdr.Asset.assetTypeNative(),
      amount: xdr.Int64.fromString((last?.amount ?? 0n).toString()),
    }),
  };
}

function pathPaymentStrictReceiveResult({ code, last }: OperationOutcome): xdr.PathPaymentStrictReceiveResult {
  if (code !== 'op_success') return pick(PATH_PAYMENT_STRICT_RECEIVE_FAILURES, code, 'pathPaymentStrictReceive');
  return xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveSuccess(
    new xdr.PathPaymentStrictReceiveResultSuccess(simplePaymentResult(last)),
  );
}

function pathPaymentStrictSendResult({ code, last }: OperationOutcome): xdr.PathPaymentStrictSendResult {
  if (code !== 'op_success') return pick(PATH_PAYMENT_STRICT_SEND_FAILURES, code, 'pathPaymentStrictSend');
  return xdr.PathPaymentStrictSendResult.pathPaymentStrictSendSuccess(new xdr.PathPaymentStrictSendResultSuccess(simplePaymentResult(last)));
}

/** Codes that are not the operation's own result but a generic OperationResult arm. */
const GENERIC: VoidResult<xdr.OperationResult> = {
  op_bad_auth: () => xdr.OperationResult.opBadAuth(),
  op_no_source_account: () => xdr.OperationResult.opNoAccount(),
  op_not_supported: () => xdr.OperationResult.opNotSupported(),
  op_too_many_subentries: () => xdr.OperationResult.opTooManySubentries(),
  op_too_many_sponsoring: () => xdr.OperationResult.opTooManySponsoring(),
};

function pick<T>(table: VoidResult<T>, code: string, kind: string): T {
  const build = table[code];
  if (!build) throw new Error(`no XDR for ${kind} result ${code}`);
  return build();
}

export function operationResultXdr(outcome: OperationOutcome): xdr.OperationResult {
  const generic = GENERIC[outcome.code];
  if (generic) return generic();
  const { kind, code } = outcome;
  if (isRevokeSponsorshipType(kind)) {
    return xdr.OperationResult.opInner(xdr.OperationResultTr.revokeSponsorship(pick(REVOKE_SPONSORSHIP, code, kind)));
  }
  switch (kind) {
    case 'createAccount':
      return xdr.OperationResult.opInner(xdr.OperationResultTr.createAccount(pick(CREATE_ACCOUNT, code, kind)));
    case 'payment':
      return xdr.OperationResult.opInner(xdr.OperationResultTr.payment(pick(PAYMENT, code, kind)));
    case 'pathPaymentStrictReceive':
      return xdr.OperationResult.opInner(xdr.OperationResultTr.pathPaymentStrictReceive(pathPaymentStrictReceiveResult(outcome)));
    case 'pathPaymentStrictSend':
      return xdr.OperationResult.opInner(xdr.OperationResultTr.pathPaymentStrictSend(pathPaymentStrictSendResult(outcome)));
    case 'changeTrust':
      return xdr.OperationResult.opInner(xdr.OperationResultTr.changeTrust(pick(CHANGE_TRUST, code, kind)));
    case 'setOptions':
      return xdr.OperationResult.opInner(xdr.OperationResultTr.setOptions(pick(SET_OPTIONS, code, kind)));
    case 'accountMerge':
      return xdr.OperationResult.opInner(xdr.OperationResultTr.accountMerge(accountMergeResult(outcome)));
    case 'beginSponsoringFutureReserves':
      return xdr.OperationResult.opInner(
        xdr.OperationResultTr.beginSponsoringFutureReserves(pick(BEGIN_SPONSORING, code, kind)),
      );
    case 'endSponsoringFutureReserves':
      return xdr.OperationResult.opInner(xdr.OperationResultTr.endSponsoringFutureReserves(pick(END_SPONSORING, code, kind)));
    case 'clawback':
      return xdr.OperationResult.opInner(xdr.OperationResultTr.clawback(pick(CLAWBACK, code, kind)));
    case 'setTrustLineFlags':
      return xdr.OperationResult.opInner(xdr.OperationResultTr.setTrustLineFlags(pick(SET_TRUST_LINE_FLAGS, code, kind)));
    default:
      // an unsupported operation that was never evaluated still needs a slot in the results
      return xdr.OperationResult.opNotSupported();
  }
}

const VOID_TX_RESULTS: Record<Exclude<TransactionCode, 'tx_success' | 'tx_failed'>, () => xdr.TransactionResultResult> = {
  tx_too_early: () => xdr.TransactionResultResult.txTooEarly(),
  tx_too_late: () => xdr.TransactionResultResult.txTooLate(),
  tx_missing_operation: () => xdr.TransactionResultResult.txMissingOperation(),
  tx_bad_seq: () => xdr.TransactionResultResult.txBadSeq(),
  tx_bad_auth: () => xdr.TransactionResultResult.txBadAuth(),
  tx_insufficient_balance: () => xdr.TransactionResultResult.txInsufficientBalance(),
  tx_no_source_account: () => xdr.TransactionResultResult.txNoAccount(),
  tx_insufficient_fee: () => xdr.TransactionResultResult.txInsufficientFee(),
  tx_bad_auth_extra: () => xdr.TransactionResultResult.txBadAuthExtra(),
  tx_internal_error: () => xdr.TransactionResultResult.txInternalError(),
  tx_not_supported: () => xdr.TransactionResultResult.txNotSupported(),
  tx_bad_min_seq_age_or_gap: () => xdr.TransactionResultResult.txBadMinSeqAgeOrGap(),
  tx_malformed: () => xdr.TransactionResultResult.txMalformed(),
  tx_bad_sponsorship: () => xdr.TransactionResultResult.txBadSponsorship(),
};

function plainResult(result: InnerResult): xdr.TransactionResultResult {
  const operations = (result.operations ?? []).map(operationResultXdr);
  if (result.code === 'tx_success') return xdr.TransactionResultResult.txSuccess(operations);
  if (result.code === 'tx_failed') return xdr.TransactionResultResult.txFailed(operations);
  return VOID_TX_RESULTS[result.code]();
}

// InnerTransactionResultResult has the same arms as TransactionResultResult minus the fee-bump ones,
// so the inner result is built by re-reading the plain result's XDR under the inner type.
function innerResultXdr(result: InnerResult): xdr.InnerTransactionResult {
  const plain = new xdr.TransactionResult({
    feeCharged: xdr.Int64.fromString(result.feeCharged.toString()),
    result: plainResult(result),
    ext: new xdr.TransactionResultExt(0),
  });
  return xdr.InnerTransactionResult.fromXDR(plain.toXDR());
}

export function transactionResultXdr(model: TransactionResultModel): xdr.TransactionResult {
  let result: xdr.TransactionResultResult;
  if (model.feeBump) {
    const pair = new xdr.InnerTransactionResultPair({
      transactionHash: model.feeBump.innerHash,
      result: innerResultXdr(model.feeBump.inner),
    });
    result =
      model.feeBump.code === 'tx_fee_bump_inner_success'
        ? xdr.TransactionResultResult.txFeeBumpInnerSuccess(pair)
        : xdr.TransactionResultResult.txFeeBumpInnerFailed(pair);
  } else {
    result = plainResult(model);
  }
  return new xdr.TransactionResult({
    feeCharged: xdr.Int64.fromString(model.feeCharged.toString()),
    result,
    ext: new xdr.TransactionResultExt(0),
  });
}

/** Horizon's `result_codes` for the same result. */
export function resultCodes(model: TransactionResultModel): {
  transaction: string;
  operations?: string[];
  inner_transaction?: { transaction: string; operations?: string[] };
} {
  const operationsOf = (result: InnerResult) =>
    result.code === 'tx_failed' || result.code === 'tx_success'
      ? { operations: (result.operations ?? []).map((op) => op.code) }
      : {};
  if (model.feeBump) {
    return {
      transaction: model.feeBump.code,
      inner_transaction: { transaction: model.feeBump.inner.code, ...operationsOf(model.feeBump.inner) },
    };
  }
  return { transaction: model.code, ...operationsOf(model) };
}
