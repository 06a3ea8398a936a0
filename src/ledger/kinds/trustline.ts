import { Operation } from '@stellar/stellar-sdk';
import { type EntryKind, finalWhenDoneOrHopeless, jobOf } from './entry-kind';

/** The bootstrap's: the distribution account trusts the token. */
export interface TrustlineCommand {
  kind: 'trustline';
}

export const trustlineCommand = (): TrustlineCommand => ({ kind: 'trustline' });

/** The distribution account's trustline for the token, on its own lane (not over the channels); the service finishes it. */
export const trustline: EntryKind<TrustlineCommand> = {
  name: 'trustline',
  record: false,
  mustFinish: true,
  supply: 'none',
  async prepare(_command, { ledger }) {
    const distribution = ledger.keys.distribution.publicKey();
    return { entry: { kind: 'trustline', fromPublicKey: distribution, toPublicKey: distribution, amountStroops: 0n, assetCode: ledger.asset.getCode() } };
  },
  async job(entry, { ledger }) {
    return jobOf(ledger.distributionDirect, entry, [Operation.changeTrust({ asset: ledger.asset })]);
  },
  refusal: finalWhenDoneOrHopeless,
};
