import { AuthClawbackEnabledFlag, AuthRevocableFlag, Operation, type AuthFlag } from '@stellar/stellar-sdk';
import { type EntryKind, jobOf, operationRefusalIsFinal } from './entry-kind';

/** The bootstrap's: the issuer enables clawback. */
export interface IssuerFlagsCommand {
  kind: 'issuer_flags';
}

export const issuerFlagsCommand = (): IssuerFlagsCommand => ({ kind: 'issuer_flags' });

/**
 * The issuer's flags that let it take its token back: AUTH_REVOCABLE (which clawback requires) and
 * AUTH_CLAWBACK_ENABLED. Only trustlines created after them can be clawed back. The service
 * finishes it; a refusal of the operation is the answer (an AUTH_IMMUTABLE issuer never can).
 */
export const issuerFlags: EntryKind<IssuerFlagsCommand> = {
  name: 'issuer_flags',
  record: false,
  mustFinish: true,
  supply: 'none',
  async prepare(_command, { ledger }) {
    return { entry: { kind: 'issuer_flags', fromPublicKey: ledger.keys.distribution.publicKey(), toPublicKey: ledger.keys.issuer.publicKey(), amountStroops: 0n, assetCode: ledger.asset.getCode() } };
  },
  async job(entry, { ledger }) {
    const issuer = ledger.keys.issuer;
    const flags = Operation.setOptions({ setFlags: (AuthRevocableFlag | AuthClawbackEnabledFlag) as AuthFlag, source: issuer.publicKey() });
    return jobOf(ledger.distributionDirect, entry, [flags], [issuer]);
  },
  refusal: operationRefusalIsFinal,
};
