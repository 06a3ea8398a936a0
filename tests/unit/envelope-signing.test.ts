import { Account, Asset, Keypair, Networks, Operation, TimeoutInfinite, TransactionBuilder } from '@stellar/stellar-sdk';
import { signEnvelope } from '../../src/ledger/envelope-signing';

/** Node's Ed25519 must sign exactly as the SDK does: the same decorated signatures, byte for byte. */
function payment(source: Keypair, sequence: string) {
  return new TransactionBuilder(new Account(source.publicKey(), sequence), { fee: '100', networkPassphrase: Networks.TESTNET })
    .addOperation(Operation.payment({ destination: Keypair.random().publicKey(), asset: Asset.native(), amount: '1.5' }))
    .setTimeout(TimeoutInfinite)
    .build();
}

const signaturesOf = (tx: { signatures: { toXDR(format: 'base64'): string }[] }) => tx.signatures.map((s) => s.toXDR('base64'));

describe('signEnvelope', () => {
  it('signs a transaction and a fee bump exactly as the SDK does, with every signer, in order', () => {
    for (let i = 0; i < 20; i++) {
      const source = Keypair.random();
      const cosigner = Keypair.random();
      const ours = payment(source, String(1000 + i));
      const sdks = TransactionBuilder.fromXDR(ours.toXDR(), Networks.TESTNET) as typeof ours;
      signEnvelope(ours, source, cosigner);
      sdks.sign(source, cosigner);
      expect(signaturesOf(ours)).toEqual(signaturesOf(sdks));
      expect(ours.toXDR()).toBe(sdks.toXDR());

      const feeSource = Keypair.random();
      const ourBump = TransactionBuilder.buildFeeBumpTransaction(feeSource, '200', ours, Networks.TESTNET);
      const sdkBump = TransactionBuilder.buildFeeBumpTransaction(feeSource, '200', sdks, Networks.TESTNET);
      signEnvelope(ourBump, feeSource);
      sdkBump.sign(feeSource);
      expect(ourBump.toXDR()).toBe(sdkBump.toXDR());
      expect(feeSource.verify(ourBump.hash(), ourBump.signatures[0]!.signature())).toBe(true);
    }
  });

  it('signs with the key of each keypair, not of an earlier one with the same public key cached', () => {
    const source = Keypair.random();
    const other = Keypair.random();
    const first = payment(source, '1');
    const second = payment(other, '1');
    signEnvelope(first, source);
    signEnvelope(second, other);
    expect(other.verify(second.hash(), second.signatures[0]!.signature())).toBe(true);
    expect(source.verify(second.hash(), second.signatures[0]!.signature())).toBe(false);
  });
});
