import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Account,
  Horizon,
  Keypair,
  TransactionBuilder,
  rpc,
  type FeeBumpTransaction,
  type Transaction,
  type xdr,
} from '@stellar/stellar-sdk';
import {
  SANDBOX_NETWORK_PASSPHRASE,
  createHorizonSandbox,
  type HorizonSandboxOptions,
  type SandboxFaults,
} from '../src';

/** What a test needs to talk to a sandbox ledger over HTTP, wherever it runs. */
export interface LedgerClient {
  url: string;
  horizon: Horizon.Server;
  passphrase: string;
}

/** A sandbox ledger behind a real HTTP server, mounted under a prefix the way the service mounts it. */
export interface SandboxHarness extends LedgerClient {
  /** Stellar RPC over the same ledger, mounted at /sandbox/rpc as the service mounts it. */
  rpc: rpc.Server;
  rpcUrl: string;
  faults: SandboxFaults;
  /**
   * Requests handed to the sandbox so far, counted once its handler can run: on arrival without a
   * body, once the body is read with one. A handler then reaches core's queue before the next turn
   * of the event loop is over (see handedIn in test-clocks.ts).
   */
  requestsIn(): number;
  close(): Promise<void>;
}

/** For a sandbox ledger in another process, e.g. the CLI. */
export function clientFor(url: string, passphrase = SANDBOX_NETWORK_PASSPHRASE): LedgerClient {
  return { url, horizon: new Horizon.Server(url, { allowHttp: true }), passphrase };
}

/** Idle ledgers are off unless a test asks for them: the others count ledgers exactly. */
export async function startSandbox(options: HorizonSandboxOptions = {}): Promise<SandboxHarness> {
  const sandbox = await createHorizonSandbox({ idleCloseMs: 0, ...options });
  const app = express();
  let requestsIn = 0;
  app.use((req, _res, next) => {
    const hasBody = (req.headers['content-length'] ?? '0') !== '0' || req.headers['transfer-encoding'] !== undefined;
    if (hasBody) req.once('end', () => requestsIn++);
    else requestsIn++;
    next();
  });
  app.use('/sandbox/horizon', sandbox.router);
  app.use('/sandbox/rpc', sandbox.rpcRouter);
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/sandbox/horizon`;
  const rpcUrl = `http://127.0.0.1:${port}/sandbox/rpc`;
  return {
    url,
    rpcUrl,
    rpc: new rpc.Server(rpcUrl, { allowHttp: true }),
    horizon: new Horizon.Server(url, { allowHttp: true }),
    passphrase: options.networkPassphrase ?? SANDBOX_NETWORK_PASSPHRASE,
    faults: sandbox.faults,
    requestsIn: () => requestsIn,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await sandbox.close();
    },
  };
}

/** A new account holding friendbot's 10000 XLM. */
export async function fundedAccount(harness: LedgerClient, keypair = Keypair.random()): Promise<Keypair> {
  await harness.horizon.friendbot(keypair.publicKey()).call();
  return keypair;
}

export interface BuildOptions {
  /** Base fee per operation, as TransactionBuilder takes it. */
  fee?: string;
  /** Who signs; defaults to the source. An empty list leaves the envelope unsigned. */
  signers?: Keypair[];
  timebounds?: { minTime: number; maxTime: number };
  passphrase?: string;
  /** Use this sequence instead of the account's current one. */
  sequence?: string;
}

export async function buildTransaction(
  harness: LedgerClient,
  source: Keypair,
  operations: xdr.Operation[],
  options: BuildOptions = {},
): Promise<Transaction> {
  const account =
    options.sequence !== undefined
      ? new Account(source.publicKey(), options.sequence)
      : await harness.horizon.loadAccount(source.publicKey());
  return buildFrom(account, operations, options.passphrase ?? harness.passphrase, options, [source]);
}

/** Builds from an Account the caller keeps, so consecutive transactions take consecutive sequences. */
export function buildFrom(
  account: Account | Horizon.AccountResponse,
  operations: xdr.Operation[],
  passphrase: string,
  options: BuildOptions,
  defaultSigners: Keypair[],
): Transaction {
  const builder = new TransactionBuilder(account, {
    fee: options.fee ?? '100',
    networkPassphrase: passphrase,
    ...(options.timebounds ? { timebounds: options.timebounds } : {}),
  });
  for (const operation of operations) builder.addOperation(operation);
  if (!options.timebounds) builder.setTimeout(300);
  const tx = builder.build();
  const signers = options.signers ?? defaultSigners;
  if (signers.length > 0) tx.sign(...signers);
  return tx;
}

export interface FailedSubmission {
  status: number;
  data: {
    type: string;
    title: string;
    status: number;
    extras: {
      envelope_xdr: string;
      result_xdr: string;
      result_codes: { transaction: string; operations?: string[]; inner_transaction?: { transaction: string; operations?: string[] } };
    };
  };
}

/** Submits through the SDK and returns Horizon's error response; fails the test if the submission succeeded. */
export async function submitExpectingFailure(
  harness: LedgerClient,
  tx: Transaction | FeeBumpTransaction,
): Promise<FailedSubmission> {
  try {
    await harness.horizon.submitTransaction(tx);
  } catch (error) {
    const response = (error as { response?: FailedSubmission }).response;
    if (response) return { status: response.status, data: response.data };
    throw error;
  }
  throw new Error('the transaction was expected to fail but succeeded');
}

/** Balances of an account keyed "native" or "CODE:ISSUER". */
export async function balancesOf(harness: LedgerClient, accountId: string): Promise<Record<string, string>> {
  const account = await harness.horizon.loadAccount(accountId);
  const result: Record<string, string> = {};
  for (const line of account.balances) {
    if (line.asset_type === 'native') result.native = line.balance;
    else if (line.asset_type === 'credit_alphanum4' || line.asset_type === 'credit_alphanum12') {
      result[`${line.asset_code}:${line.asset_issuer}`] = line.balance;
    }
  }
  return result;
}
