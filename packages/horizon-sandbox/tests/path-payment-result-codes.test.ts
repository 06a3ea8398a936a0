import {
  Account,
  Address,
  Asset,
  AuthRequiredFlag,
  AuthRevocableFlag,
  Keypair,
  MuxedAccount,
  Operation,
  rpc,
  scValToNative,
  xdr,
  type Horizon,
} from '@stellar/stellar-sdk';
import { holderOf, horizonLine, issuerWith, mint, newAsset } from './issuer-helpers';
import { decodedResult, expectRefused, nativeStroops } from './reserve-helpers';
import { buildTransaction, fundedAccount, startSandbox, type SandboxHarness } from './sandbox-harness';

// path_payment_strict_receive and path_payment_strict_send as stellar-core applies them when no
// offer has to be crossed (an empty path, the same asset at both ends): one real signed envelope per
// result code, in core's order of checks, and the success result core writes (no offers, `last`).

let harness: SandboxHarness;
let issuer: Keypair;
let asset: Asset;

beforeAll(async () => {
  harness = await startSandbox();
  issuer = await issuerWith(harness);
  asset = newAsset('PTH', issuer);
});

afterAll(() => harness.close());

const strictReceive = (destination: string, amount: string, sendMax = amount, on = asset, options: { path?: Asset[]; sendAsset?: Asset } = {}) =>
  Operation.pathPaymentStrictReceive({
    sendAsset: options.sendAsset ?? on,
    sendMax,
    destination,
    destAsset: on,
    destAmount: amount,
    path: options.path ?? [],
  });

const strictSend = (destination: string, amount: string, destMin = amount, on = asset, options: { path?: Asset[]; destAsset?: Asset } = {}) =>
  Operation.pathPaymentStrictSend({
    sendAsset: on,
    sendAmount: amount,
    destination,
    destAsset: options.destAsset ?? on,
    destMin,
    path: options.path ?? [],
  });

/** Operation 0's success result: the offers crossed and `last`, read as plain values. */
function successOf(resultXdr: string, kind: 'pathPaymentStrictReceive' | 'pathPaymentStrictSend') {
  const result = decodedResult(resultXdr).result().results()[0]?.tr();
  if (!result) throw new Error('no operation result');
  const success =
    kind === 'pathPaymentStrictReceive' ? result.pathPaymentStrictReceiveResult().success() : result.pathPaymentStrictSendResult().success();
  const last = success.last();
  return {
    offers: success.offers().length,
    destination: Address.account(last.destination().ed25519()).toString(),
    asset: Asset.fromOperation(last.asset()),
    amount: last.amount().toString(),
  };
}

const balanceOf = async (holder: Keypair) => (await horizonLine(harness, holder, asset)).balance;

describe('a path payment that crosses no offer', () => {
  it('strict receive moves destAmount, charges no more than that, and reports it as `last` with no offers', async () => {
    const [sender, receiver] = [await holderOf(harness, asset, issuer, '50'), await holderOf(harness, asset, issuer)];
    const response = await harness.horizon.submitTransaction(
      await buildTransaction(harness, sender, [strictReceive(receiver.publicKey(), '12.5', '20')]),
    );

    expect(successOf(response.result_xdr, 'pathPaymentStrictReceive')).toEqual({
      offers: 0,
      destination: receiver.publicKey(),
      asset,
      amount: '125000000',
    });
    expect(await balanceOf(sender)).toBe('37.5000000');
    expect(await balanceOf(receiver)).toBe('12.5000000');
  });

  it('strict send moves sendAmount of lumens, to a muxed destination, from an operation source other than the transaction\'s', async () => {
    const [payer, signer, receiver] = await Promise.all([fundedAccount(harness), fundedAccount(harness), fundedAccount(harness)]);
    const muxed = new MuxedAccount(new Account(receiver.publicKey(), '0'), '9').accountId();
    const op = Operation.pathPaymentStrictSend({
      source: payer.publicKey(),
      sendAsset: Asset.native(),
      sendAmount: '3',
      destination: muxed,
      destAsset: Asset.native(),
      destMin: '2.5',
      path: [],
    });
    const tx = await buildTransaction(harness, signer, [op], { signers: [signer, payer] });
    const response = await harness.horizon.submitTransaction(tx);

    expect(successOf(response.result_xdr, 'pathPaymentStrictSend')).toEqual({
      offers: 0,
      destination: receiver.publicKey(),
      asset: Asset.native(),
      amount: '30000000',
    });
    // the operation's source paid the 3 XLM; the transaction's source only the fee
    expect(nativeStroops(await harness.horizon.loadAccount(payer.publicKey()))).toBe(100_000_000_000n - 30_000_000n);
    expect(nativeStroops(await harness.horizon.loadAccount(signer.publicKey()))).toBe(100_000_000_000n - 100n);
    expect(nativeStroops(await harness.horizon.loadAccount(receiver.publicKey()))).toBe(100_000_000_000n + 30_000_000n);
  });

  it('lets the issuer mint with it and burn what is sent back to it', async () => {
    const holder = await holderOf(harness, asset, issuer);
    await harness.horizon.submitTransaction(await buildTransaction(harness, issuer, [strictSend(holder.publicKey(), '8')]));
    expect(await balanceOf(holder)).toBe('8.0000000');
    await harness.horizon.submitTransaction(await buildTransaction(harness, holder, [strictReceive(issuer.publicKey(), '3')]));
    expect(await balanceOf(holder)).toBe('5.0000000');
  });

  it('is listed by /accounts/:id/payments in Horizon\'s shape, with a transfer event on RPC', async () => {
    const [sender, receiver] = [await holderOf(harness, asset, issuer, '10'), await holderOf(harness, asset, issuer)];
    const response = await harness.horizon.submitTransaction(
      await buildTransaction(harness, sender, [strictReceive(receiver.publicKey(), '4', '5'), strictSend(receiver.publicKey(), '1', '0.5')]),
    );

    const { records } = await harness.horizon.payments().forAccount(receiver.publicKey()).order('desc').limit(2).call();
    const [send, receive] = records as [Horizon.ServerApi.PaymentOperationRecord, Horizon.ServerApi.PaymentOperationRecord];
    const issued = { asset_type: 'credit_alphanum4', asset_code: 'PTH', asset_issuer: issuer.publicKey() };
    expect(receive).toMatchObject({
      type: 'path_payment_strict_receive',
      type_i: 2,
      transaction_hash: response.hash,
      transaction_successful: true,
      source_account: sender.publicKey(),
      from: sender.publicKey(),
      to: receiver.publicKey(),
      amount: '4.0000000',
      source_amount: '4.0000000',
      source_max: '5.0000000',
      path: [],
      ...issued,
      source_asset_type: 'credit_alphanum4',
      source_asset_code: 'PTH',
      source_asset_issuer: issuer.publicKey(),
    });
    expect(send).toMatchObject({
      type: 'path_payment_strict_send',
      type_i: 13,
      amount: '1.0000000',
      source_amount: '1.0000000',
      destination_min: '0.5000000',
      path: [],
      ...issued,
    });

    const { events } = await harness.rpc.getEvents({ startLedger: response.ledger, endLedger: response.ledger + 1, filters: [] });
    const transfers = events
      .filter((event) => event.txHash === response.hash && scValToNative(event.topic[0] as xdr.ScVal) === 'transfer')
      .map((event) => ({ operation: event.operationIndex, amount: scValToNative(event.value) as bigint }));
    expect(transfers).toEqual([
      { operation: 0, amount: 40_000_000n },
      { operation: 1, amount: 10_000_000n },
    ]);
  });
});

describe('a path payment that fails, with stellar-core\'s codes in its order of checks', () => {
  it('op_no_destination before anything else', async () => {
    const sender = await holderOf(harness, asset, issuer, '1');
    const nobody = Keypair.random().publicKey();
    await expectRefused(harness, await buildTransaction(harness, sender, [strictReceive(nobody, '1')]), ['op_no_destination'], 'pathPaymentStrictReceiveNoDestination');
    await expectRefused(harness, await buildTransaction(harness, sender, [strictSend(nobody, '1')]), ['op_no_destination'], 'pathPaymentStrictSendNoDestination');
  });

  it('strict receive checks the destination first: op_no_trust, op_not_authorized, op_line_full', async () => {
    const sender = await holderOf(harness, asset, issuer, '100');
    const untrusting = await fundedAccount(harness);
    await expectRefused(harness, await buildTransaction(harness, sender, [strictReceive(untrusting.publicKey(), '1')]), ['op_no_trust'], 'pathPaymentStrictReceiveNoTrust');

    const { asset: guarded, authorizedHolder, waitingHolder } = await guardedAsset('GRD');
    await expectRefused(
      harness,
      await buildTransaction(harness, authorizedHolder, [strictReceive(waitingHolder.publicKey(), '1', '1', guarded)]),
      ['op_not_authorized'],
      'pathPaymentStrictReceiveNotAuthorized',
    );

    const small = await fundedAccount(harness);
    await harness.horizon.submitTransaction(await buildTransaction(harness, small, [Operation.changeTrust({ asset, limit: '2' })]));
    await expectRefused(harness, await buildTransaction(harness, sender, [strictReceive(small.publicKey(), '3')]), ['op_line_full'], 'pathPaymentStrictReceiveLineFull');
  });

  it('strict receive: op_too_few_offers for a hop or another asset, then op_over_source_max, then the source (op_src_no_trust, op_underfunded)', async () => {
    const [sender, receiver] = [await holderOf(harness, asset, issuer, '10'), await holderOf(harness, asset, issuer)];
    const other = newAsset('OTH', issuer);
    const build = (op: xdr.Operation) => buildTransaction(harness, sender, [op]);
    await expectRefused(harness, await build(strictReceive(receiver.publicKey(), '1', '1', asset, { sendAsset: Asset.native() })), ['op_too_few_offers'], 'pathPaymentStrictReceiveTooFewOffers');
    await expectRefused(harness, await build(strictReceive(receiver.publicKey(), '1', '1', asset, { path: [other] })), ['op_too_few_offers'], 'pathPaymentStrictReceiveTooFewOffers');
    await expectRefused(harness, await build(strictReceive(receiver.publicKey(), '2', '1.9999999')), ['op_over_source_max'], 'pathPaymentStrictReceiveOverSendmax');
    await expectRefused(harness, await build(strictReceive(receiver.publicKey(), '10.0000001', '11')), ['op_underfunded'], 'pathPaymentStrictReceiveUnderfunded');
    const untrusting = await fundedAccount(harness);
    await expectRefused(
      harness,
      await buildTransaction(harness, untrusting, [strictReceive(receiver.publicKey(), '1')]),
      ['op_src_no_trust'],
      'pathPaymentStrictReceiveSrcNoTrust',
    );
    // a hop of the same asset is skipped, as core skips it: no offer to cross, so it goes through
    await harness.horizon.submitTransaction(await build(strictReceive(receiver.publicKey(), '1', '1', asset, { path: [asset] })));
    expect(await balanceOf(receiver)).toBe('1.0000000');
    expect(await balanceOf(sender)).toBe('9.0000000');
  });

  it('strict send checks the source first: op_src_no_trust, op_underfunded, then op_too_few_offers, op_under_dest_min, then the destination', async () => {
    const [sender, receiver] = [await holderOf(harness, asset, issuer, '10'), await holderOf(harness, asset, issuer)];
    const build = (op: xdr.Operation, from = sender) => buildTransaction(harness, from, [op]);
    const untrusting = await fundedAccount(harness);
    await expectRefused(harness, await build(strictSend(receiver.publicKey(), '1'), untrusting), ['op_src_no_trust'], 'pathPaymentStrictSendSrcNoTrust');
    // underfunded comes before the missing trustline of the destination: the source is checked first
    await expectRefused(harness, await build(strictSend(untrusting.publicKey(), '11')), ['op_underfunded'], 'pathPaymentStrictSendUnderfunded');
    await expectRefused(
      harness,
      await build(strictSend(receiver.publicKey(), '1', '1', asset, { destAsset: Asset.native() })),
      ['op_too_few_offers'],
      'pathPaymentStrictSendTooFewOffers',
    );
    await expectRefused(harness, await build(strictSend(receiver.publicKey(), '1', '1.0000001')), ['op_under_dest_min'], 'pathPaymentStrictSendUnderDestmin');
    await expectRefused(harness, await build(strictSend(untrusting.publicKey(), '1')), ['op_no_trust'], 'pathPaymentStrictSendNoTrust');
    expect(await balanceOf(sender)).toBe('10.0000000');
  });

  it('op_src_not_authorized for a sender whose line the issuer has not authorized', async () => {
    const { asset: guarded, authorizedHolder, waitingHolder } = await guardedAsset('SRC');
    await expectRefused(
      harness,
      await buildTransaction(harness, waitingHolder, [strictSend(authorizedHolder.publicKey(), '1', '1', guarded)]),
      ['op_src_not_authorized'],
      'pathPaymentStrictSendSrcNotAuthorized',
    );
  });

  it('op_malformed for amounts that are not positive, which only a hand-built envelope can carry', async () => {
    const [sender, receiver] = [await holderOf(harness, asset, issuer, '1'), await holderOf(harness, asset, issuer)];
    const receive = strictReceive(receiver.publicKey(), '1');
    receive.body().pathPaymentStrictReceiveOp().sendMax(xdr.Int64.fromString('0'));
    await expectRefused(harness, await buildTransaction(harness, sender, [receive]), ['op_malformed'], 'pathPaymentStrictReceiveMalformed');
    const send = strictSend(receiver.publicKey(), '1');
    send.body().pathPaymentStrictSendOp().destMin(xdr.Int64.fromString('-1'));
    await expectRefused(harness, await buildTransaction(harness, sender, [send]), ['op_malformed'], 'pathPaymentStrictSendMalformed');
  });

  it('leaves the zeroed success result on an operation after the failed one, as core does', async () => {
    const [sender, receiver] = [await holderOf(harness, asset, issuer, '1'), await holderOf(harness, asset, issuer)];
    const tx = await buildTransaction(harness, sender, [strictSend(receiver.publicKey(), '5'), strictSend(receiver.publicKey(), '1')]);
    await expectRefused(harness, tx, ['op_underfunded', 'op_success'], 'pathPaymentStrictSendUnderfunded');
    expect((await rpcTransaction(tx.hash().toString('hex'))).resultXdr.result().results()[1]?.tr().pathPaymentStrictSendResult().success().last().amount().toString()).toBe('0');
  });
});

async function rpcTransaction(hash: string): Promise<rpc.Api.GetSuccessfulTransactionResponse | rpc.Api.GetFailedTransactionResponse> {
  const found = await harness.rpc.getTransaction(hash);
  if (found.status === rpc.Api.GetTransactionStatus.NOT_FOUND) throw new Error(`${hash} not found`);
  return found;
}

/**
 * An asset whose issuer requires authorization: two holders trust it, only the first is authorized
 * (and holds 5); the second's line waits for authorization.
 */
async function guardedAsset(code: string) {
  const guarding = await issuerWith(harness, AuthRequiredFlag | AuthRevocableFlag);
  const guarded = newAsset(code, guarding);
  const [authorizedHolder, waitingHolder] = [await holderOf(harness, guarded, guarding), await holderOf(harness, guarded, guarding)];
  const authorize = Operation.setTrustLineFlags({ trustor: authorizedHolder.publicKey(), asset: guarded, flags: { authorized: true } });
  await harness.horizon.submitTransaction(await buildTransaction(harness, guarding, [authorize]));
  await mint(harness, guarding, authorizedHolder, guarded, '5');
  return { asset: guarded, authorizedHolder, waitingHolder };
}
