import { Operation, type Asset, type Keypair, type xdr } from '@stellar/stellar-sdk';
import { balanceOf } from '../../clients/ledger-api';
import { formatStroops } from '../../domain/amounts';
import { anyRefusalIsFinal, type EntryKind, jobOf } from './entry-kind';

/** New tokens from the issuing account to the distribution account. */
export interface IssueCommand {
  kind: 'issue';
  stroops: bigint;
}

export function issueCommand(command: Omit<IssueCommand, 'kind'>): IssueCommand {
  return { kind: 'issue', ...command };
}

/** An admin's issue of a batch: in the issuer's batches; any refusal is the answer. */
export const issue: EntryKind<IssueCommand> = {
  name: 'issue',
  record: false,
  mustFinish: false,
  supply: 'issued',
  async prepare(command, { ledger }) {
    return { entry: { kind: 'issue', fromPublicKey: ledger.keys.issuer.publicKey(), toPublicKey: ledger.keys.distribution.publicKey(), amountStroops: command.stroops, assetCode: ledger.asset.getCode() } };
  },
  async job(entry, { ledger, client }) {
    const distribution = await client.loadAccount(ledger.keys.distribution.publicKey(), ledger.asset);
    const trusts = distribution !== undefined && balanceOf(distribution, ledger.asset) !== undefined;
    const { operations, signers } = issueOperations(ledger.asset, ledger.keys.distribution, entry.amountStroops, trusts);
    return jobOf(ledger.issuer, entry, operations, signers);
  },
  refusal: anyRefusalIsFinal,
};

/** New tokens from the issuer to the distribution account, which first trusts the token if it does not yet. */
function issueOperations(asset: Asset, distribution: Keypair, stroops: bigint, trusts: boolean): { operations: xdr.Operation[]; signers: Keypair[] } {
  const distributionKey = distribution.publicKey();
  const operations = trusts ? [] : [Operation.changeTrust({ asset, source: distributionKey })];
  operations.push(Operation.payment({ destination: distributionKey, asset, amount: formatStroops(stroops) }));
  return { operations, signers: trusts ? [] : [distribution] };
}
