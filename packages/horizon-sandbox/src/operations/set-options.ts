import type { Operation } from '@stellar/stellar-sdk';
import {
  AUTH_CLAWBACK_ENABLED_FLAG,
  AUTH_IMMUTABLE_FLAG,
  AUTH_REVOCABLE_FLAG,
  KNOWN_ACCOUNT_FLAGS,
  MAX_SIGNERS,
} from '../ledger-rules';
import type { ThresholdLevel } from '../signature-checker';
import { releaseSubentry, reserveNewSubentry } from './entry-reserves';
import { OP_SUCCESS, type OperationContext } from './operation-context';

const MAX_WEIGHT = 255;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Changing who can sign (weights, thresholds, signers) needs the high threshold; the rest, medium. */
export function setOptionsThreshold(op: Operation.SetOptions): ThresholdLevel {
  const touchesAuth =
    op.masterWeight !== undefined ||
    op.lowThreshold !== undefined ||
    op.medThreshold !== undefined ||
    op.highThreshold !== undefined ||
    op.signer !== undefined;
  return touchesAuth ? 'high' : 'med';
}

export function checkSetOptions(op: Operation.SetOptions, source: string): string {
  const setFlags = op.setFlags ?? 0;
  const clearFlags = op.clearFlags ?? 0;
  // core's order: an unknown flag is reported before a flag both set and cleared
  if (((setFlags | clearFlags) & ~KNOWN_ACCOUNT_FLAGS) !== 0) return 'op_unknown_flag';
  if ((setFlags & clearFlags) !== 0) return 'op_bad_flags';
  const weights = [op.masterWeight, op.lowThreshold, op.medThreshold, op.highThreshold];
  if (weights.some((weight) => weight !== undefined && weight > MAX_WEIGHT)) return 'op_threshold_out_of_range';
  if (op.signer) {
    // hash-x, pre-authorized and signed-payload signers are real Stellar features the sandbox leaves out
    if (!('ed25519PublicKey' in op.signer)) return 'op_not_supported';
    if (op.signer.ed25519PublicKey === source || (op.signer.weight ?? 0) > MAX_WEIGHT) return 'op_bad_signer';
  }
  if (op.homeDomain !== undefined && !PRINTABLE_ASCII.test(op.homeDomain)) return 'op_invalid_home_domain';
  return OP_SUCCESS;
}

export function applySetOptions(op: Operation.SetOptions, context: OperationContext): string {
  const { delta, source } = context;
  const account = delta.write(source);
  if (!account) return 'op_no_source_account';

  if (op.inflationDest !== undefined) {
    if (!delta.exists(op.inflationDest)) return 'op_invalid_inflation';
    account.inflationDest = op.inflationDest;
  }

  if (op.setFlags !== undefined || op.clearFlags !== undefined) {
    // AUTH_IMMUTABLE is the promise to holders that the issuer's rules never change again; a set or
    // clear of no flag at all (0) changes nothing, and core lets it through
    const touched = (op.setFlags ?? 0) | (op.clearFlags ?? 0);
    if ((touched & KNOWN_ACCOUNT_FLAGS) !== 0 && (account.flags & AUTH_IMMUTABLE_FLAG) !== 0) return 'op_cant_change';
    const flags = (account.flags | (op.setFlags ?? 0)) & ~(op.clearFlags ?? 0);
    // clawback revokes a holder's balance, so an issuer that claws back must be able to revoke
    // (protocol 17): setting clawback without revocable, or clearing revocable under it, fails alike
    if ((flags & AUTH_CLAWBACK_ENABLED_FLAG) !== 0 && (flags & AUTH_REVOCABLE_FLAG) === 0) {
      return 'op_auth_revocable_required';
    }
    account.flags = flags;
  }

  if (op.homeDomain !== undefined) account.homeDomain = op.homeDomain;

  if (op.signer && 'ed25519PublicKey' in op.signer) {
    const key = op.signer.ed25519PublicKey;
    const weight = op.signer.weight ?? 0;
    const index = account.signers.findIndex((signer) => signer.key === key);
    const existing = account.signers[index];
    if (weight === 0) {
      if (existing) {
        account.signers.splice(index, 1);
        releaseSubentry(delta, account, existing.sponsor);
      }
    } else if (existing) {
      existing.weight = weight;
    } else {
      if (account.signers.length >= MAX_SIGNERS) return 'op_too_many_signers';
      // a signer is a subentry like a trustline: an active sponsor of the account pays its reserve
      const reserve = reserveNewSubentry(context, account);
      if (reserve.code !== OP_SUCCESS) return reserve.code;
      account.signers.push({ key, weight, ...(reserve.sponsor !== undefined ? { sponsor: reserve.sponsor } : {}) });
      account.signers.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    }
  }

  if (op.masterWeight !== undefined) account.masterWeight = op.masterWeight;
  if (op.lowThreshold !== undefined) account.thresholds.low = op.lowThreshold;
  if (op.medThreshold !== undefined) account.thresholds.med = op.medThreshold;
  if (op.highThreshold !== undefined) account.thresholds.high = op.highThreshold;
  return OP_SUCCESS;
}
