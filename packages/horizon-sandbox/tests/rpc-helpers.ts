import { Account, Keypair, Operation, TransactionBuilder, rpc, xdr, type FeeBumpTransaction, type Transaction } from '@stellar/stellar-sdk';
import type { SandboxHarness } from './sandbox-harness';

/** The transaction result code of sendTransaction's errorResult, e.g. 'txBadSeq'. */
export function errorCode(sent: rpc.Api.SendTransactionResponse): string {
  if (!sent.errorResult) throw new Error(`expected an ERROR with its result, got ${sent.status}`);
  return sent.errorResult.result().switch().name;
}

/** For a fee bump refused because of its inner transaction: the inner result's code. */
export function innerErrorCode(sent: rpc.Api.SendTransactionResponse): string {
  if (!sent.errorResult) throw new Error(`expected an ERROR with its result, got ${sent.status}`);
  return sent.errorResult.result().innerResultPair().result().result().switch().name;
}

/** The network's root account, which holds every lumen: it can pay without any ledger closing first. */
export async function rootAccount(harness: SandboxHarness): Promise<{ keypair: Keypair; account: Account }> {
  const keypair = Keypair.master(harness.passphrase);
  return { keypair, account: await harness.rpc.getAccount(keypair.publicKey()) };
}

/** A signed create_account from `source`, taking its next sequence number. */
export function creation(harness: SandboxHarness, source: Keypair, account: Account, fee = '100'): Transaction {
  const tx = new TransactionBuilder(account, { fee, networkPassphrase: harness.passphrase })
    .addOperation(Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '10' }))
    .setTimeout(300)
    .build();
  tx.sign(source);
  return tx;
}

export function feeBump(harness: SandboxHarness, feeSource: Keypair, inner: Transaction, baseFee: string): FeeBumpTransaction {
  const bump = TransactionBuilder.buildFeeBumpTransaction(feeSource, baseFee, inner, harness.passphrase);
  bump.sign(feeSource);
  return bump;
}

/** JSON-RPC over plain fetch, for what rpc.Server never sends (bad input). */
export async function rawRpc(harness: SandboxHarness, body: string): Promise<{ status: number; json: unknown }> {
  const response = await fetch(harness.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as unknown) : undefined };
}

export const hashOf = (tx: Transaction | FeeBumpTransaction) => tx.hash().toString('hex');

export const accountKey = (id: string) =>
  xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(id).xdrAccountId() }));
