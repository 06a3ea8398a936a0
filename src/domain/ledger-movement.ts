// What moving value on the ledger means to the service's history (CONTRACT.md section 12): the
// operations that carry an asset from one account to another. Fees, reserve sponsorship, trustlines
// and options move nothing and are not history.

/** The operations whose successful application moves the token or XLM between two accounts. */
export const MOVEMENT_OPERATIONS = ['payment', 'path_payment_strict_send', 'path_payment_strict_receive', 'clawback', 'create_account', 'account_merge'] as const;
export type MovementOperation = (typeof MOVEMENT_OPERATIONS)[number];

/** An asset as the history names it: `XLM` for the native one (no issuer), else its code and issuer. */
export interface MovedAsset {
  code: string;
  issuer: string | undefined;
}

export const NATIVE: MovedAsset = { code: 'XLM', issuer: undefined };

export function sameAsset(a: MovedAsset, b: MovedAsset): boolean {
  return a.code === b.code && a.issuer === b.issuer;
}

/** A clawback burns what it takes: the tokens leave the wallet for the issuer and no one holds them. */
export function burns(type: MovementOperation): boolean {
  return type === 'clawback';
}
