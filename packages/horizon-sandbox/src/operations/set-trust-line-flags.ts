import type { Operation, xdr } from '@stellar/stellar-sdk';
import {
  AUTH_REVOCABLE_FLAG,
  KNOWN_TRUSTLINE_FLAGS,
  TRUSTLINE_AUTHORIZED_FLAG,
  TRUSTLINE_AUTHORIZED_TO_MAINTAIN_LIABILITIES_FLAG,
  TRUSTLINE_AUTH_FLAGS,
  TRUSTLINE_CLAWBACK_ENABLED_FLAG,
  assetKey,
} from '../ledger-rules';
import { OP_SUCCESS, type OperationContext } from './operation-context';

/**
 * CAP-35's set_trust_line_flags: the issuer authorizes, freezes (authorized to maintain liabilities
 * only) or deauthorizes a holder's trustline, or clears its clawback flag for good. Setting clawback
 * is never allowed: a line gets it only when created under an issuer that has it.
 *
 * Out of scope: revoking authorization in core also removes the holder's offers and redeems its
 * liquidity pool shares of the asset, which is where SET_TRUST_LINE_FLAGS_LOW_RESERVE comes from.
 * The sandbox has neither offers nor pools, so that step has nothing to do and never fails.
 */

/** Both authorization flags at once is a state core never allows on a line. */
const bothAuthFlags = (flags: number) => (flags & TRUSTLINE_AUTH_FLAGS) === TRUSTLINE_AUTH_FLAGS;

/**
 * core's doCheckValid, in its order; every failure is MALFORMED. The flags are read from the
 * operation's XDR (`encoded`): the SDK's decoded booleans drop unknown bits and hide a flag both set
 * and cleared, which core refuses.
 */
export function checkSetTrustLineFlags(op: Operation.SetTrustLineFlags, source: string, encoded: xdr.Operation): string {
  const { setFlags, clearFlags } = rawFlags(encoded);
  if (op.asset.isNative()) return 'op_malformed';
  if (op.asset.getIssuer() !== source) return 'op_malformed';
  if (op.trustor === source) return 'op_malformed';
  if ((setFlags & clearFlags) !== 0) return 'op_malformed';
  if ((setFlags & ~KNOWN_TRUSTLINE_FLAGS) !== 0 || bothAuthFlags(setFlags)) return 'op_malformed';
  if ((setFlags & TRUSTLINE_CLAWBACK_ENABLED_FLAG) !== 0) return 'op_malformed';
  if ((clearFlags & ~KNOWN_TRUSTLINE_FLAGS) !== 0) return 'op_malformed';
  return OP_SUCCESS;
}

export function applySetTrustLineFlags(op: Operation.SetTrustLineFlags, { delta, source }: OperationContext): string {
  const { setFlags, clearFlags } = decodedFlags(op);
  // checked before the line is even loaded, as core does: an issuer without AUTH_REVOCABLE may
  // authorize, but never take authorization (full or to maintain liabilities) away
  const issuer = delta.read(source);
  const revocable = issuer !== undefined && (issuer.flags & AUTH_REVOCABLE_FLAG) !== 0;
  const clearingAnyAuth = (clearFlags & TRUSTLINE_AUTH_FLAGS) !== 0;
  const settingAuthorized = (setFlags & TRUSTLINE_AUTHORIZED_FLAG) !== 0;
  if (!revocable && clearingAnyAuth && !settingAuthorized) return 'op_cant_revoke';

  const holder = delta.write(op.trustor);
  const line = holder?.trustlines.get(assetKey(op.asset.getCode(), op.asset.getIssuer()));
  // Horizon's name for SET_TRUST_LINE_FLAGS_NO_TRUST_LINE
  if (!line) return 'op_no_trust';
  const flags = (line.flags & ~clearFlags) | setFlags;
  if (bothAuthFlags(flags)) return 'op_invalid_state';
  line.flags = flags;
  line.lastModifiedLedger = delta.ledgerSequence;
  return OP_SUCCESS;
}

function rawFlags(encoded: xdr.Operation): { setFlags: number; clearFlags: number } {
  const body = encoded.body().setTrustLineFlagsOp();
  return { setFlags: body.setFlags(), clearFlags: body.clearFlags() };
}

/** Once checkSetTrustLineFlags has passed, the SDK's booleans say exactly which bits are set and which cleared. */
function decodedFlags(op: Operation.SetTrustLineFlags): { setFlags: number; clearFlags: number } {
  const bits: [boolean | undefined, number][] = [
    [op.flags.authorized, TRUSTLINE_AUTHORIZED_FLAG],
    [op.flags.authorizedToMaintainLiabilities, TRUSTLINE_AUTHORIZED_TO_MAINTAIN_LIABILITIES_FLAG],
    [op.flags.clawbackEnabled, TRUSTLINE_CLAWBACK_ENABLED_FLAG],
  ];
  let setFlags = 0;
  let clearFlags = 0;
  for (const [value, bit] of bits) {
    if (value === true) setFlags |= bit;
    if (value === false) clearFlags |= bit;
  }
  return { setFlags, clearFlags };
}
