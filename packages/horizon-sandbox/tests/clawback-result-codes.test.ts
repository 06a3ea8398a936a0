import { Asset, MuxedAccount, xdr, type Keypair } from '@stellar/stellar-sdk';
import {
  CLAWBACK_ISSUER_FLAGS,
  TRUSTLINE_AUTHORIZED,
  TRUSTLINE_CLAWBACK_ENABLED,
  clawbackOp,
  firstResultName,
  holderOf,
  horizonLine,
  issuerWith,
  lineStroops,
  newAsset,
  rpcLine,
  setAccountFlags,
} from './issuer-helpers';
import { expectRefused } from './reserve-helpers';
import { buildTransaction, fundedAccount, startSandbox, type SandboxHarness } from './sandbox-harness';

// CAP-35's clawback as stellar-core applies it: one real signed envelope per result code, and the
// holder's line checked on Horizon and in RPC's trustline entry after each success.

let harness: SandboxHarness;
let issuer: Keypair;
let asset: Asset;

beforeAll(async () => {
  harness = await startSandbox();
  issuer = await issuerWith(harness, CLAWBACK_ISSUER_FLAGS);
  asset = newAsset('RFD', issuer);
});

afterAll(() => harness.close());

const clawback = async (from: Keypair | string, amount: string, on = asset, source = issuer) =>
  buildTransaction(harness, source, [clawbackOp(on, from, amount)]);

describe('clawback from a line created under a clawback-enabled issuer', () => {
  it('burns the amount from the holder: Horizon, RPC and the result XDR agree', async () => {
    const holder = await holderOf(harness, asset, issuer, '100');
    const line = await horizonLine(harness, holder, asset);
    expect(line).toMatchObject({ is_authorized: true, is_authorized_to_maintain_liabilities: true, is_clawback_enabled: true });

    const response = await harness.horizon.submitTransaction(await clawback(holder, '30.5'));
    expect(firstResultName(response.result_xdr)).toBe('clawbackSuccess');

    expect((await horizonLine(harness, holder, asset)).balance).toBe('69.5000000');
    expect(await rpcLine(harness, holder, asset)).toEqual({
      balance: 695_000_000n,
      flags: TRUSTLINE_AUTHORIZED | TRUSTLINE_CLAWBACK_ENABLED,
    });
    // the record both APIs keep: the clawback operation in the envelope, its result beside it
    const onRpc = await harness.rpc.getTransaction(response.hash);
    expect(onRpc.status).toBe('SUCCESS');
    if (onRpc.status !== 'SUCCESS') return;
    expect(onRpc.resultXdr.result().results()[0]?.tr().clawbackResult().switch().name).toBe('clawbackSuccess');
    const record = await harness.horizon.transactions().transaction(response.hash).call();
    expect(record.successful).toBe(true);
    const [op] = xdr.TransactionEnvelope.fromXDR(record.envelope_xdr, 'base64').v1().tx().operations();
    expect(op?.body().switch().name).toBe('clawback');
  });

  it('can take the whole balance, down to 0, and no more (op_underfunded)', async () => {
    const holder = await holderOf(harness, asset, issuer, '5');
    await expectRefused(harness, await clawback(holder, '5.0000001'), ['op_underfunded'], 'clawbackUnderfunded');
    expect(lineStroops(await horizonLine(harness, holder, asset))).toBe(50_000_000n);

    await harness.horizon.submitTransaction(await clawback(holder, '5'));
    expect(await rpcLine(harness, holder, asset)).toMatchObject({ balance: 0n });
  });

  it('reaches a holder addressed by a muxed (M) address, as core loads the underlying account', async () => {
    const holder = await holderOf(harness, asset, issuer, '3');
    const muxed = new MuxedAccount(await harness.horizon.loadAccount(holder.publicKey()), '42').accountId();
    await harness.horizon.submitTransaction(await clawback(muxed, '1'));
    expect((await horizonLine(harness, holder, asset)).balance).toBe('2.0000000');
  });
});

describe('clawback refused', () => {
  it('from a line created before the issuer enabled clawback (op_not_clawback_enabled); a line created after can', async () => {
    const lateIssuer = await issuerWith(harness);
    const late = newAsset('OLD', lateIssuer);
    const oldWallet = await holderOf(harness, late, lateIssuer, '10');
    await setAccountFlags(harness, lateIssuer, CLAWBACK_ISSUER_FLAGS);
    const newWallet = await holderOf(harness, late, lateIssuer, '10');

    expect((await horizonLine(harness, oldWallet, late)).is_clawback_enabled).toBe(false);
    expect((await rpcLine(harness, oldWallet, late)).flags).toBe(TRUSTLINE_AUTHORIZED);
    await expectRefused(harness, await clawback(oldWallet, '1', late, lateIssuer), ['op_not_clawback_enabled'], 'clawbackNotClawbackEnabled');
    expect((await horizonLine(harness, oldWallet, late)).balance).toBe('10.0000000');

    expect((await horizonLine(harness, newWallet, late)).is_clawback_enabled).toBe(true);
    await harness.horizon.submitTransaction(await clawback(newWallet, '1', late, lateIssuer));
    expect((await horizonLine(harness, newWallet, late)).balance).toBe('9.0000000');
  });

  it('from an account without a line of the asset (op_no_trust)', async () => {
    const stranger = await fundedAccount(harness);
    await expectRefused(harness, await clawback(stranger, '1'), ['op_no_trust'], 'clawbackNoTrust');
  });

  it('from the issuer itself, of lumens, or by an account that is not the issuer (op_malformed)', async () => {
    const holder = await holderOf(harness, asset, issuer, '1');
    await expectRefused(harness, await clawback(issuer, '1'), ['op_malformed'], 'clawbackMalformed');
    await expectRefused(harness, await clawback(holder, '1', Asset.native()), ['op_malformed'], 'clawbackMalformed');
    // the holder itself, and another issuer's asset, are both "source is not the asset's issuer"
    await expectRefused(harness, await clawback(holder, '1', asset, holder), ['op_malformed'], 'clawbackMalformed');
    const other = await issuerWith(harness, CLAWBACK_ISSUER_FLAGS);
    await expectRefused(harness, await clawback(holder, '1', asset, other), ['op_malformed'], 'clawbackMalformed');
    expect((await horizonLine(harness, holder, asset)).balance).toBe('1.0000000');
  });

  it('of an amount of 0 (op_malformed), which only a hand-built envelope can carry', async () => {
    const holder = await holderOf(harness, asset, issuer, '1');
    const op = clawbackOp(asset, holder, '1');
    // the SDK's builder refuses 0 before it reaches any network; core must refuse it too
    op.body().clawbackOp().amount(xdr.Int64.fromString('0'));
    await expectRefused(harness, await buildTransaction(harness, issuer, [op]), ['op_malformed'], 'clawbackMalformed');
  });

  it('with the transaction, leaving the earlier operations undone when a later one fails', async () => {
    const holder = await holderOf(harness, asset, issuer, '4');
    const tx = await buildTransaction(harness, issuer, [clawbackOp(asset, holder, '1'), clawbackOp(asset, holder, '10')]);
    await expectRefused(harness, tx, ['op_success', 'op_underfunded'], 'clawbackUnderfunded');
    expect((await rpcLine(harness, holder, asset)).balance).toBe(40_000_000n);
  });
});

