import { Operation, type Asset, type Keypair, type xdr } from '@stellar/stellar-sdk';
import { balanceOf } from '../../clients/ledger-api';
import { formatStroops } from '../../domain/amounts';
import { anyRefusalIsFinal, approvalClaim, type EntryKind, jobOf } from './entry-kind';

/** New tokens from the issuing account to the distribution account; above MINT_APPROVAL_THRESHOLD, the approval it was approved as. */
export interface IssueCommand {
  kind: 'issue';
  stroops: bigint;
  approvalId?: string;
}

export function issueCommand(command: Omit<IssueCommand, 'kind'>): IssueCommand {
  return { kind: 'issue', ...command };
}

/** An admin's issue of a batch: in the issuer's batches; any refusal is the answer. One approved by a second admin claims its approval (written once). */
export const issue: EntryKind<IssueCommand> = {
  name: 'issue',
  record: false,
  mustFinish: false,
  supply: 'issued',
  claim: approvalClaim,
  async prepare(command, { ledger }) {
    const entry = { kind: 'issue' as const, fromPublicKey: ledger.keys.issuer.publicKey(), toPublicKey: ledger.keys.distribution.publicKey(), amountStroops: command.stroops, assetCode: ledger.asset.getCode(), approvalId: command.approvalId };
    return { entry };
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
