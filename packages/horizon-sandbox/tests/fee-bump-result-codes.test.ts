import {
  Asset,
  FeeBumpTransaction,
  Keypair,
  Operation,
  TransactionBuilder,
  xdr,
  type Transaction,
} from '@stellar/stellar-sdk';
import {
  balancesOf,
  buildTransaction,
  fundedAccount,
  startSandbox,
  submitExpectingFailure,
  type FailedSubmission,
  type SandboxHarness,
} from './sandbox-harness';

// One real fee-bump envelope (CAP-15) per outcome, checked in Horizon's result_codes and in the
// result_xdr the SDK decodes, with stellar-core's fee_charged: on a refusal the base fee for the
// inner operations plus one, on success what the ledger charged; inside, before protocol 25, what the
// inner transaction would have paid on its own, or 0 when it never reached the ledger.

let harness: SandboxHarness;
let sender: Keypair;
let sponsor: Keypair;
let receiver: Keypair;

beforeAll(async () => {
  harness = await startSandbox();
  [sender, sponsor, receiver] = await Promise.all([fundedAccount(harness), fundedAccount(harness), fundedAccount(harness)]);
});

afterAll(() => harness.close());

const pay = (destination: string, amount = '1') => Operation.payment({ destination, asset: Asset.native(), amount });

/**
 * A fee bump of `inner` paid by `feeSource` at `baseFee` per operation (the SDK's rate), signed by
 * `signers`. `outerFee` overrides the total fee after building, for the fees the SDK refuses to build.
 */
function feeBump(
  inner: Transaction,
  feeSource: string,
  signers: Keypair[],
  { baseFee = '100', outerFee }: { baseFee?: string; outerFee?: string } = {},
): FeeBumpTransaction {
  let bump = TransactionBuilder.buildFeeBumpTransaction(feeSource, baseFee, inner, harness.passphrase);
  if (outerFee !== undefined) {
    const envelope = bump.toEnvelope();
    envelope.feeBump().tx().fee(xdr.Int64.fromString(outerFee));
    bump = new FeeBumpTransaction(envelope, harness.passphrase);
  }
  bump.sign(...signers);
  return bump;
}

const hashOf = (tx: Transaction | FeeBumpTransaction) => tx.hash().toString('hex');
const decoded = (resultXdr: string) => xdr.TransactionResult.fromXDR(resultXdr, 'base64');

/** A refusal of the fee bump itself: a plain transaction result, no inner pair. */
function expectOuterRefusal(failure: FailedSubmission, code: string, xdrName: string, feeCharged: string): void {
  expect(failure.status).toBe(400);
  expect(failure.data.type).toBe('https://stellar.org/horizon-errors/transaction_failed');
  expect(failure.data.extras.result_codes).toEqual({ transaction: code });
  const result = decoded(failure.data.extras.result_xdr);
  expect(result.result().switch().name).toBe(xdrName);
  expect(result.feeCharged().toString()).toBe(feeCharged);
}

async function statusOf(hash: string): Promise<number> {
  return (await fetch(`${harness.url}/transactions/${hash}`)).status;
}

describe('a fee bump that makes it into the ledger', () => {
  it('tx_fee_bump_inner_success: the fee source pays for the inner operations plus one, the sender nothing', async () => {
    const before = { sender: await balancesOf(harness, sender.publicKey()), sponsor: await balancesOf(harness, sponsor.publicKey()) };
    const inner = await buildTransaction(harness, sender, [pay(receiver.publicKey(), '10')]);
    const bump = feeBump(inner, sponsor.publicKey(), [sponsor], { baseFee: '500' });

    const response = await harness.horizon.submitTransaction(bump);

    expect(response).toMatchObject({ successful: true, hash: hashOf(bump), fee_charged: '200', max_fee: '1000' });
    const result = decoded(response.result_xdr);
    expect(result.result().switch().name).toBe('txFeeBumpInnerSuccess');
    expect(result.feeCharged().toString()).toBe('200');
    const pair = result.result().innerResultPair();
    expect(pair.transactionHash().toString('hex')).toBe(hashOf(inner));
    expect(pair.result().result().switch().name).toBe('txSuccess');
    // protocol 23: the inner result shows what the inner transaction would have been charged
    expect(pair.result().feeCharged().toString()).toBe('100');
    expect(await balancesOf(harness, sender.publicKey())).toEqual({ native: subtract(before.sender.native, '10.0000000') });
    expect(await balancesOf(harness, sponsor.publicKey())).toEqual({ native: subtract(before.sponsor.native, '0.0000200') });
  });

  it('tx_fee_bump_inner_failed with an operation failure: in the ledger, fee charged to the fee source, sequence used', async () => {
    const sponsorBefore = await balancesOf(harness, sponsor.publicKey());
    const inner = await buildTransaction(harness, sender, [pay(Keypair.random().publicKey())]);
    const bump = feeBump(inner, sponsor.publicKey(), [sponsor]);

    const failure = await submitExpectingFailure(harness, bump);

    expect(failure.status).toBe(400);
    expect(failure.data.extras.result_codes).toEqual({
      transaction: 'tx_fee_bump_inner_failed',
      inner_transaction: { transaction: 'tx_failed', operations: ['op_no_destination'] },
    });
    const result = decoded(failure.data.extras.result_xdr);
    expect(result.result().switch().name).toBe('txFeeBumpInnerFailed');
    expect(result.feeCharged().toString()).toBe('200');
    const innerResult = result.result().innerResultPair().result();
    expect(innerResult.result().switch().name).toBe('txFailed');
    expect(innerResult.result().results()[0]?.tr().paymentResult().switch().name).toBe('paymentNoDestination');
    expect(innerResult.feeCharged().toString()).toBe('100');

    const record = await harness.horizon.transactions().transaction(hashOf(bump)).call();
    expect(record).toMatchObject({ successful: false, fee_charged: '200', fee_account: sponsor.publicKey() });
    expect(await balancesOf(harness, sponsor.publicKey())).toEqual({ native: subtract(sponsorBefore.native, '0.0000200') });
    expect((await harness.horizon.loadAccount(sender.publicKey())).sequence).toBe(inner.sequence);
  });

  it('pays for an inner transaction that bid 0 from a source holding only its reserve', async () => {
    const broke = Keypair.random();
    await harness.horizon.submitTransaction(
      await buildTransaction(harness, sender, [Operation.createAccount({ destination: broke.publicKey(), startingBalance: '1' })]),
    );
    const inner = await buildTransaction(harness, broke, [Operation.setOptions({ homeDomain: 'broke.example' })], { fee: '0' });
    expect(inner.fee).toBe('0');

    const response = await harness.horizon.submitTransaction(feeBump(inner, sponsor.publicKey(), [sponsor]));

    expect(response).toMatchObject({ successful: true, fee_charged: '200', max_fee: '200' });
    const pair = decoded(response.result_xdr).result().innerResultPair();
    expect(pair.result().result().switch().name).toBe('txSuccess');
    expect(pair.result().feeCharged().toString()).toBe('0');
    const account = await harness.horizon.loadAccount(broke.publicKey());
    expect(account.home_domain).toBe('broke.example');
    expect(account.balances).toEqual([expect.objectContaining({ asset_type: 'native', balance: '1.0000000' })]);
  });
});

describe('a fee bump refused before the ledger', () => {
  it('an invalid inner transaction (tx_bad_seq) is tx_fee_bump_inner_failed, nothing charged, nothing recorded', async () => {
    const sponsorBefore = await balancesOf(harness, sponsor.publicKey());
    const { sequence } = await harness.horizon.loadAccount(sender.publicKey());
    const inner = await buildTransaction(harness, sender, [pay(receiver.publicKey())], {
      sequence: (BigInt(sequence) + 5n).toString(),
    });
    const bump = feeBump(inner, sponsor.publicKey(), [sponsor]);

    const failure = await submitExpectingFailure(harness, bump);

    expect(failure.data.extras.result_codes).toEqual({
      transaction: 'tx_fee_bump_inner_failed',
      inner_transaction: { transaction: 'tx_bad_seq' },
    });
    const result = decoded(failure.data.extras.result_xdr);
    expect(result.result().switch().name).toBe('txFeeBumpInnerFailed');
    expect(result.feeCharged().toString()).toBe('200');
    const pair = result.result().innerResultPair();
    expect(pair.transactionHash().toString('hex')).toBe(hashOf(inner));
    expect(pair.result().result().switch().name).toBe('txBadSeq');
    expect(pair.result().feeCharged().toString()).toBe('0');
    expect(await statusOf(hashOf(bump))).toBe(404);
    expect(await statusOf(hashOf(inner))).toBe(404);
    expect(await balancesOf(harness, sponsor.publicKey())).toEqual(sponsorBefore);
    expect((await harness.horizon.loadAccount(sender.publicKey())).sequence).toBe(sequence);
  });

  it('tx_insufficient_fee when the outer fee is below the base fee for the inner operations plus one', async () => {
    const inner = await buildTransaction(harness, sender, [pay(receiver.publicKey()), pay(receiver.publicKey())]);
    // 3 operations to pay for: 300 stroops at least
    const failure = await submitExpectingFailure(harness, feeBump(inner, sponsor.publicKey(), [sponsor], { outerFee: '299' }));
    expectOuterRefusal(failure, 'tx_insufficient_fee', 'txInsufficientFee', '300');
  });

  it('tx_insufficient_fee when the outer rate per operation is below the inner one, with the fee that would do', async () => {
    const inner = await buildTransaction(harness, sender, [pay(receiver.publicKey())], { fee: '300' });
    // 400 covers 2 x 100, but is 200 per operation against the inner 300: it would have needed 600
    const failure = await submitExpectingFailure(harness, feeBump(inner, sponsor.publicKey(), [sponsor], { baseFee: '300', outerFee: '400' }));
    expectOuterRefusal(failure, 'tx_insufficient_fee', 'txInsufficientFee', '600');
  });

  it('tx_bad_auth when the fee source did not sign the outer envelope', async () => {
    const inner = await buildTransaction(harness, sender, [pay(receiver.publicKey())]);
    const failure = await submitExpectingFailure(harness, feeBump(inner, sponsor.publicKey(), [Keypair.random()]));
    expectOuterRefusal(failure, 'tx_bad_auth', 'txBadAuth', '200');
  });

  it('tx_bad_auth_extra when the outer envelope carries a signature nobody needed', async () => {
    const inner = await buildTransaction(harness, sender, [pay(receiver.publicKey())]);
    const failure = await submitExpectingFailure(harness, feeBump(inner, sponsor.publicKey(), [sponsor, Keypair.random()]));
    expectOuterRefusal(failure, 'tx_bad_auth_extra', 'txBadAuthExtra', '200');
  });

  it('tx_insufficient_balance when the fee source cannot pay the outer fee above its reserve', async () => {
    const poor = Keypair.random();
    await harness.horizon.submitTransaction(
      await buildTransaction(harness, sender, [Operation.createAccount({ destination: poor.publicKey(), startingBalance: '1' })]),
    );
    const inner = await buildTransaction(harness, sender, [pay(receiver.publicKey())]);
    const failure = await submitExpectingFailure(harness, feeBump(inner, poor.publicKey(), [poor]));
    expectOuterRefusal(failure, 'tx_insufficient_balance', 'txInsufficientBalance', '200');
    expect(await balancesOf(harness, poor.publicKey())).toEqual({ native: '1.0000000' });
  });

  it('tx_no_source_account when the fee source does not exist', async () => {
    const ghost = Keypair.random();
    const inner = await buildTransaction(harness, sender, [pay(receiver.publicKey())]);
    const failure = await submitExpectingFailure(harness, feeBump(inner, ghost.publicKey(), [ghost]));
    expectOuterRefusal(failure, 'tx_no_source_account', 'txNoAccount', '200');
  });
});

describe('looking a fee bump up', () => {
  it('answers under the outer and the inner hash with the same record, named by the hash asked for', async () => {
    const inner = await buildTransaction(harness, sender, [pay(receiver.publicKey())]);
    const bump = feeBump(inner, sponsor.publicKey(), [sponsor], { baseFee: '150' });
    await harness.horizon.submitTransaction(bump);
    const signatures = (tx: Transaction | FeeBumpTransaction) => tx.signatures.map((s) => s.signature().toString('base64'));

    const byOuter = await harness.horizon.transactions().transaction(hashOf(bump)).call();
    const byInner = await harness.horizon.transactions().transaction(hashOf(inner)).call();

    const shared = {
      ledger_attr: byOuter.ledger_attr,
      envelope_xdr: bump.toXDR(),
      result_xdr: byOuter.result_xdr,
      fee_account: sponsor.publicKey(),
      source_account: sender.publicKey(),
      fee_charged: '200',
      max_fee: '300',
      fee_bump_transaction: { hash: hashOf(bump), signatures: signatures(bump) },
      inner_transaction: { hash: hashOf(inner), signatures: signatures(inner), max_fee: '100' },
    };
    expect(byOuter).toMatchObject({ ...shared, id: hashOf(bump), hash: hashOf(bump), signatures: signatures(bump) });
    expect(byInner).toMatchObject({ ...shared, id: hashOf(inner), hash: hashOf(inner), signatures: signatures(inner) });
    expect(decoded(byInner.result_xdr).result().switch().name).toBe('txFeeBumpInnerSuccess');
  });
});

/** `a - b` for two 7-decimal amounts, exactly, in stroops. */
function subtract(a: string | undefined, b: string): string {
  const stroops = (amount: string) => BigInt(amount.replace('.', ''));
  const difference = stroops(a ?? '0') - stroops(b);
  const text = difference.toString().padStart(8, '0');
  return `${text.slice(0, -7)}.${text.slice(-7)}`;
}
