import { Account, Asset, Keypair, Networks, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { envelopeHash, envelopeHashHex } from '../src/envelope-hash';

/**
 * The sandbox keeps each envelope's hash once computed (src/envelope-hash.ts): it must be the hash
 * the SDK computes, for a transaction and for a fee bump around it, and stay that hash when
 * signatures are added after it was first asked for (signatures are not part of it).
 */
function payment(source: Keypair, passphrase = Networks.TESTNET) {
  return new TransactionBuilder(new Account(source.publicKey(), '41'), { fee: '100', networkPassphrase: passphrase })
    .addOperation(Operation.payment({ destination: Keypair.random().publicKey(), asset: Asset.native(), amount: '1.5' }))
    .setTimeout(30)
    .build();
}

it("is the SDK's hash of a transaction and of a fee bump around it, before and after signing", () => {
  const source = Keypair.random();
  const tx = payment(source);
  const before = envelopeHashHex(tx);
  expect(before).toBe(tx.hash().toString('hex'));
  tx.sign(source);
  expect(envelopeHash(tx).equals(tx.hash())).toBe(true);
  expect(envelopeHashHex(tx)).toBe(before);

  const sponsor = Keypair.random();
  const bump = TransactionBuilder.buildFeeBumpTransaction(sponsor, '400', tx, Networks.TESTNET);
  expect(envelopeHashHex(bump)).toBe(bump.hash().toString('hex'));
  expect(envelopeHashHex(bump)).not.toBe(before);
  bump.sign(sponsor);
  expect(envelopeHashHex(bump)).toBe(bump.hash().toString('hex'));
});

it('tells apart the same transaction on two networks, and two transactions on one', () => {
  const source = Keypair.random();
  const onTestnet = payment(source);
  const onPublic = payment(source, Networks.PUBLIC);
  expect(envelopeHashHex(onPublic)).toBe(onPublic.hash().toString('hex'));
  expect(envelopeHashHex(onPublic)).not.toBe(envelopeHashHex(onTestnet));
  expect(envelopeHashHex(payment(source))).not.toBe(envelopeHashHex(onTestnet));
});
