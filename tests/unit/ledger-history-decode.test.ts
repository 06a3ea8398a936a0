import { Account, Asset, Keypair, MuxedAccount, Operation, TransactionBuilder, xdr, type Transaction } from '@stellar/stellar-sdk';
import { decodeTransaction, laterCursor, ledgerOfToid } from '../../src/clients/ledger-history';

/**
 * What a transaction moved, as both ledger adapters decode it from its XDR. The sandbox ledger
 * crosses no offers, so the strict-receive path payment that crossed the order book, whose amount
 * sent is only in its result, is checked here on XDR made the way stellar-core makes it.
 */

const PASSPHRASE = 'Decode Test Network';
const issuer = Keypair.random();
const token = new Asset('WLT', issuer.publicKey());
const wallet = Keypair.random();
const outside = Keypair.random();
const seller = Keypair.random();

const int64 = (stroops: bigint) => xdr.Int64.fromString(stroops.toString());
const success = (tr: xdr.OperationResultTr) => xdr.OperationResult.opInner(tr);

function signed(operations: xdr.Operation[]): Transaction {
  const builder = new TransactionBuilder(new Account(wallet.publicKey(), '1'), { fee: '100', networkPassphrase: PASSPHRASE }).setTimeout(0);
  for (const op of operations) builder.addOperation(op);
  const tx = builder.build();
  tx.sign(wallet);
  return tx;
}

function result(code: 'txSuccess' | 'txFailed', operations: xdr.OperationResult[]): string {
  return new xdr.TransactionResult({
    feeCharged: int64(700n),
    result: code === 'txSuccess' ? xdr.TransactionResultResult.txSuccess(operations) : xdr.TransactionResultResult.txFailed(operations),
    ext: new xdr.TransactionResultExt(0),
  }).toXDR('base64');
}

describe('decoding a transaction into its movements', () => {
  const muxed = new MuxedAccount(new Account(outside.publicKey(), '0'), '42');
  const tx = signed([
    Operation.payment({ destination: muxed.accountId(), asset: token, amount: '1.5' }),
    Operation.changeTrust({ asset: token }),
    // 2 tokens arrive, bought with XLM from two offers: 30 + 12 XLM left the wallet.
    Operation.pathPaymentStrictReceive({ sendAsset: Asset.native(), sendMax: '100', destination: outside.publicKey(), destAsset: token, destAmount: '2', path: [] }),
    Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '0' }),
    Operation.clawback({ asset: token, from: outside.publicKey(), amount: '0.25', source: issuer.publicKey() }),
    Operation.accountMerge({ destination: outside.publicKey() }),
  ]);
  const offer = (xlm: bigint) =>
    xdr.ClaimAtom.claimAtomTypeOrderBook(
      new xdr.ClaimOfferAtom({ sellerId: seller.xdrAccountId(), offerId: int64(1n), assetSold: token.toXDRObject(), amountSold: int64(10_000_000n), assetBought: Asset.native().toXDRObject(), amountBought: int64(xlm) }),
    );
  const results = [
    success(xdr.OperationResultTr.payment(xdr.PaymentResult.paymentSuccess())),
    success(xdr.OperationResultTr.changeTrust(xdr.ChangeTrustResult.changeTrustSuccess())),
    success(
      xdr.OperationResultTr.pathPaymentStrictReceive(
        xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveSuccess(
          new xdr.PathPaymentStrictReceiveResultSuccess({
            offers: [offer(300_000_000n), offer(120_000_000n)],
            last: new xdr.SimplePaymentResult({ destination: outside.xdrAccountId(), asset: token.toXDRObject(), amount: int64(20_000_000n) }),
          }),
        ),
      ),
    ),
    success(xdr.OperationResultTr.createAccount(xdr.CreateAccountResult.createAccountSuccess())),
    success(xdr.OperationResultTr.clawback(xdr.ClawbackResult.clawbackSuccess())),
    success(xdr.OperationResultTr.accountMerge(xdr.AccountMergeResult.accountMergeSuccess(int64(99_999_900n)))),
  ];
  const hash = tx.hash().toString('hex');

  it('reads each movement with its accounts, asset and amounts, and skips what moves nothing', () => {
    const decoded = decodeTransaction(tx.toEnvelope().toXDR('base64'), result('txSuccess', results), hash, PASSPHRASE);
    expect(decoded.innerHash).toBe(hash);
    expect(decoded.feeCharged).toBe(700n);
    const tokenRef = { code: 'WLT', issuer: issuer.publicKey() };
    const xlm = { code: 'XLM', issuer: undefined };
    expect(decoded.movements).toEqual([
      // a muxed destination is its base account
      { operationIndex: 0, type: 'payment', from: wallet.publicKey(), to: outside.publicKey(), asset: tokenRef, stroops: 15_000_000n, sent: { asset: tokenRef, stroops: 15_000_000n } },
      { operationIndex: 2, type: 'path_payment_strict_receive', from: wallet.publicKey(), to: outside.publicKey(), asset: tokenRef, stroops: 20_000_000n, sent: { asset: xlm, stroops: 420_000_000n } },
      // a starting balance of 0 moves nothing; the operation's own source is the clawback's receiver
      { operationIndex: 4, type: 'clawback', from: outside.publicKey(), to: issuer.publicKey(), asset: tokenRef, stroops: 2_500_000n, sent: { asset: tokenRef, stroops: 2_500_000n } },
      { operationIndex: 5, type: 'account_merge', from: wallet.publicKey(), to: outside.publicKey(), asset: xlm, stroops: 99_999_900n, sent: { asset: xlm, stroops: 99_999_900n } },
    ]);
  });

  it('a failed transaction moved nothing', () => {
    expect(decodeTransaction(tx.toEnvelope().toXDR('base64'), result('txFailed', results), hash, PASSPHRASE).movements).toEqual([]);
  });

  it("a fee bump is named by its inner transaction's hash, the journal's", () => {
    const bump = TransactionBuilder.buildFeeBumpTransaction(outside, '1000', tx, PASSPHRASE);
    bump.sign(outside);
    const pair = new xdr.InnerTransactionResultPair({ transactionHash: tx.hash(), result: xdr.InnerTransactionResult.fromXDR(result('txSuccess', results), 'base64') });
    const bumped = new xdr.TransactionResult({ feeCharged: int64(1400n), result: xdr.TransactionResultResult.txFeeBumpInnerSuccess(pair), ext: new xdr.TransactionResultExt(0) });
    const decoded = decodeTransaction(bump.toEnvelope().toXDR('base64'), bumped.toXDR('base64'), bump.hash().toString('hex'), PASSPHRASE);
    expect(decoded.innerHash).toBe(hash);
    expect(decoded.feeCharged).toBe(1400n);
    expect(decoded.movements.map((m) => m.operationIndex)).toEqual([0, 2, 4, 5]);
  });
});

describe('history positions (TOIDs)', () => {
  it('name their ledger, and never move back', () => {
    const at = (ledger: number, tx: number) => String((BigInt(ledger) << 32n) | (BigInt(tx) << 12n) | 1n);
    expect(ledgerOfToid(at(77, 3))).toBe(77);
    expect(laterCursor(at(77, 3), at(78, 1))).toBe(at(78, 1));
    // stellar-rpc answers "0" past an instance's newest ledger, and an earlier cursor from an instance behind
    expect(laterCursor(at(77, 3), '0')).toBe(at(77, 3));
    expect(laterCursor(at(77, 3), at(77, 0))).toBe(at(77, 3));
    expect(laterCursor(undefined, '0')).toBeUndefined();
    expect(laterCursor(undefined, at(5, 0))).toBe(at(5, 0));
  });
});
