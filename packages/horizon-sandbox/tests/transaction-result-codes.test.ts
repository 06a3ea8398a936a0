import { Asset, Keypair, Operation, Transaction, xdr } from '@stellar/stellar-sdk';
import {
  buildTransaction,
  fundedAccount,
  startSandbox,
  submitExpectingFailure,
  type FailedSubmission,
  type SandboxHarness,
} from './sandbox-harness';

// One real signed envelope per Stellar result code, checked both in Horizon's result_codes and in the
// result_xdr the SDK decodes, so the two can never drift apart.

let harness: SandboxHarness;
let alice: Keypair;
let issuer: Keypair;

beforeAll(async () => {
  harness = await startSandbox();
  [alice, issuer] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
});

afterAll(() => harness.close());

const decodedResult = (failure: FailedSubmission) =>
  xdr.TransactionResult.fromXDR(failure.data.extras.result_xdr, 'base64');

function expectTransactionFailure(failure: FailedSubmission, code: string, xdrName: string): void {
  expect(failure.status).toBe(400);
  expect(failure.data.type).toBe('https://stellar.org/horizon-errors/transaction_failed');
  expect(failure.data.title).toBe('Transaction Failed');
  expect(failure.data.extras.result_codes.transaction).toBe(code);
  expect(decodedResult(failure).result().switch().name).toBe(xdrName);
}

function expectOperationFailure(failure: FailedSubmission, operations: string[]): void {
  expectTransactionFailure(failure, 'tx_failed', 'txFailed');
  expect(failure.data.extras.result_codes.operations).toEqual(operations);
  expect(decodedResult(failure).result().results()).toHaveLength(operations.length);
}

const pay = (destination: string, amount: string, asset = Asset.native()) =>
  Operation.payment({ destination, asset, amount });

describe('transaction-level result codes', () => {
  it('rejects an envelope signed for another network with tx_bad_auth', async () => {
    const tx = await buildTransaction(harness, alice, [pay(issuer.publicKey(), '1')], {
      passphrase: 'Test SDF Network ; September 2015',
    });
    expectTransactionFailure(await submitExpectingFailure(harness, tx), 'tx_bad_auth', 'txBadAuth');
  });

  it('rejects an unsigned envelope with tx_bad_auth', async () => {
    const tx = await buildTransaction(harness, alice, [pay(issuer.publicKey(), '1')], { signers: [] });
    expectTransactionFailure(await submitExpectingFailure(harness, tx), 'tx_bad_auth', 'txBadAuth');
  });

  it('rejects an envelope signed by a stranger instead of the source with tx_bad_auth', async () => {
    const tx = await buildTransaction(harness, alice, [pay(issuer.publicKey(), '1')], { signers: [Keypair.random()] });
    expectTransactionFailure(await submitExpectingFailure(harness, tx), 'tx_bad_auth', 'txBadAuth');
  });

  it('rejects a signature nobody needed with tx_bad_auth_extra', async () => {
    const tx = await buildTransaction(harness, alice, [pay(issuer.publicKey(), '1')], {
      signers: [alice, Keypair.random()],
    });
    expectTransactionFailure(await submitExpectingFailure(harness, tx), 'tx_bad_auth_extra', 'txBadAuthExtra');
  });

  it('rejects a sequence number that is not the next one with tx_bad_seq and leaves the account alone', async () => {
    const before = await harness.horizon.loadAccount(alice.publicKey());
    const tx = await buildTransaction(harness, alice, [pay(issuer.publicKey(), '1')], {
      sequence: (BigInt(before.sequence) + 5n).toString(),
    });
    expectTransactionFailure(await submitExpectingFailure(harness, tx), 'tx_bad_seq', 'txBadSeq');
    const after = await harness.horizon.loadAccount(alice.publicKey());
    expect(after.sequence).toBe(before.sequence);
    expect(after.balances).toEqual(before.balances);
  });

  it('rejects a fee below 100 stroops per operation with tx_insufficient_fee', async () => {
    const tx = await buildTransaction(harness, alice, [pay(issuer.publicKey(), '1'), pay(issuer.publicKey(), '1')], {
      fee: '50',
    });
    const failure = await submitExpectingFailure(harness, tx);
    expectTransactionFailure(failure, 'tx_insufficient_fee', 'txInsufficientFee');
    expect(decodedResult(failure).feeCharged().toString()).toBe('200');
  });

  it('rejects a transaction whose time bounds have passed with tx_too_late', async () => {
    const now = Math.floor(Date.now() / 1000);
    const tx = await buildTransaction(harness, alice, [pay(issuer.publicKey(), '1')], {
      timebounds: { minTime: 0, maxTime: now - 60 },
    });
    expectTransactionFailure(await submitExpectingFailure(harness, tx), 'tx_too_late', 'txTooLate');
  });

  it('rejects a transaction whose time bounds have not started with tx_too_early', async () => {
    const now = Math.floor(Date.now() / 1000);
    const tx = await buildTransaction(harness, alice, [pay(issuer.publicKey(), '1')], {
      timebounds: { minTime: now + 3600, maxTime: 0 },
    });
    expectTransactionFailure(await submitExpectingFailure(harness, tx), 'tx_too_early', 'txTooEarly');
  });

  it('rejects a source account that does not exist with tx_no_source_account', async () => {
    const ghost = Keypair.random();
    const tx = await buildTransaction(harness, ghost, [pay(alice.publicKey(), '1')], { sequence: '0' });
    expectTransactionFailure(await submitExpectingFailure(harness, tx), 'tx_no_source_account', 'txNoAccount');
  });

  it('rejects a transaction without operations with tx_missing_operation', async () => {
    const built = await buildTransaction(harness, alice, [pay(issuer.publicKey(), '1')], { signers: [] });
    const envelope = built.toEnvelope();
    envelope.v1().tx().operations([]);
    const tx = new Transaction(envelope, harness.passphrase);
    tx.sign(alice);
    expectTransactionFailure(await submitExpectingFailure(harness, tx), 'tx_missing_operation', 'txMissingOperation');
  });

  it('rejects a source that cannot pay the fee above its reserve with tx_insufficient_balance', async () => {
    const broke = Keypair.random();
    const create = await buildTransaction(harness, alice, [
      Operation.createAccount({ destination: broke.publicKey(), startingBalance: '1' }),
    ]);
    await harness.horizon.submitTransaction(create);
    const tx = await buildTransaction(harness, broke, [pay(alice.publicKey(), '0.0000001')]);
    expectTransactionFailure(await submitExpectingFailure(harness, tx), 'tx_insufficient_balance', 'txInsufficientBalance');
  });
});

describe('operation-level result codes', () => {
  it('reports op_underfunded for a payment larger than the spendable balance', async () => {
    const tx = await buildTransaction(harness, alice, [pay(issuer.publicKey(), '9999.5')]);
    expectOperationFailure(await submitExpectingFailure(harness, tx), ['op_underfunded']);
  });

  it('reports op_no_destination for a payment to an account that does not exist', async () => {
    const tx = await buildTransaction(harness, alice, [pay(Keypair.random().publicKey(), '1')]);
    expectOperationFailure(await submitExpectingFailure(harness, tx), ['op_no_destination']);
  });

  it('reports op_no_trust for an asset the destination does not trust', async () => {
    const tx = await buildTransaction(harness, issuer, [pay(alice.publicKey(), '1', new Asset('NOPE', issuer.publicKey()))]);
    expectOperationFailure(await submitExpectingFailure(harness, tx), ['op_no_trust']);
  });

  it('reports op_src_no_trust when a non-issuer sends an asset it holds no trustline for', async () => {
    const tx = await buildTransaction(harness, alice, [pay(issuer.publicKey(), '1', new Asset('NOPE', issuer.publicKey()))]);
    // paying the issuer burns, so only the source side can fail
    expectOperationFailure(await submitExpectingFailure(harness, tx), ['op_src_no_trust']);
  });

  it('reports op_line_full for a payment above the destination trustline limit', async () => {
    const asset = new Asset('CAP', issuer.publicKey());
    await harness.horizon.submitTransaction(
      await buildTransaction(harness, alice, [Operation.changeTrust({ asset, limit: '10' })]),
    );
    const tx = await buildTransaction(harness, issuer, [pay(alice.publicKey(), '10.0000001', asset)]);
    expectOperationFailure(await submitExpectingFailure(harness, tx), ['op_line_full']);
  });

  it('reports op_low_reserve for a new account funded below two base reserves', async () => {
    const tx = await buildTransaction(harness, alice, [
      Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '0.9999999' }),
    ]);
    expectOperationFailure(await submitExpectingFailure(harness, tx), ['op_low_reserve']);
  });

  it('reports op_already_exists when creating an account that exists', async () => {
    const tx = await buildTransaction(harness, alice, [
      Operation.createAccount({ destination: issuer.publicKey(), startingBalance: '5' }),
    ]);
    expectOperationFailure(await submitExpectingFailure(harness, tx), ['op_already_exists']);
  });

  it('reports op_not_supported for an operation the sandbox does not implement', async () => {
    const tx = await buildTransaction(harness, alice, [Operation.manageData({ name: 'hello', value: 'world' })]);
    const failure = await submitExpectingFailure(harness, tx);
    expectOperationFailure(failure, ['op_not_supported']);
    expect(decodedResult(failure).result().results()[0]?.switch().name).toBe('opNotSupported');
  });

  it('reports op_no_issuer for a trustline to an issuer that does not exist', async () => {
    const tx = await buildTransaction(harness, alice, [
      Operation.changeTrust({ asset: new Asset('GONE', Keypair.random().publicKey()) }),
    ]);
    expectOperationFailure(await submitExpectingFailure(harness, tx), ['op_no_issuer']);
  });

  it('reports op_malformed for an issuer trusting its own asset', async () => {
    const tx = await buildTransaction(harness, issuer, [
      Operation.changeTrust({ asset: new Asset('SELF', issuer.publicKey()) }),
    ]);
    expectOperationFailure(await submitExpectingFailure(harness, tx), ['op_malformed']);
  });

  it('reports op_invalid_limit when lowering a trustline limit below its balance', async () => {
    const asset = new Asset('LIM', issuer.publicKey());
    await harness.horizon.submitTransaction(await buildTransaction(harness, alice, [Operation.changeTrust({ asset })]));
    await harness.horizon.submitTransaction(await buildTransaction(harness, issuer, [pay(alice.publicKey(), '50', asset)]));
    const lower = await buildTransaction(harness, alice, [Operation.changeTrust({ asset, limit: '49' })]);
    expectOperationFailure(await submitExpectingFailure(harness, lower), ['op_invalid_limit']);
    const remove = await buildTransaction(harness, alice, [Operation.changeTrust({ asset, limit: '0' })]);
    expectOperationFailure(await submitExpectingFailure(harness, remove), ['op_invalid_limit']);
  });

  it('reports op_bad_auth for an operation whose source did not sign', async () => {
    const tx = await buildTransaction(harness, alice, [
      Operation.payment({ source: issuer.publicKey(), destination: alice.publicKey(), asset: Asset.native(), amount: '1' }),
    ]);
    expectOperationFailure(await submitExpectingFailure(harness, tx), ['op_bad_auth']);
  });
});

describe('submission problems', () => {
  it('answers an undecodable envelope with a transaction_malformed problem', async () => {
    const response = await fetch(`${harness.url}/transactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'tx=bm90IGFuIGVudmVsb3Bl',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      type: 'https://stellar.org/horizon-errors/transaction_malformed',
      title: 'Transaction Malformed',
      status: 400,
      extras: { envelope_xdr: 'bm90IGFuIGVudmVsb3Bl' },
    });
  });

  it('accepts a JSON body {tx} as well as the form field', async () => {
    const tx = await buildTransaction(harness, alice, [pay(issuer.publicKey(), '1')]);
    const response = await fetch(`${harness.url}/transactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tx: tx.toXDR() }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ hash: tx.hash().toString('hex'), successful: true });
  });
});
