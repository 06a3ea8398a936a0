import { Asset, Keypair, SignerKey, StrKey, xdr } from '@stellar/stellar-sdk';
import type { LedgerReadView } from '../ledger-read-view';
import { assetKey } from '../ledger-rules';
import type { AccountEntry, Trustline } from '../ledger-state';

export interface FoundEntry {
  data: xdr.LedgerEntryData;
  lastModifiedLedgerSeq: number;
}

const int64 = (value: bigint | number) => xdr.Int64.fromString(value.toString());
const accountIdOf = (id: string) => Keypair.fromPublicKey(id).xdrAccountId();
const addressOf = (accountId: xdr.AccountId) => StrKey.encodeEd25519PublicKey(accountId.ed25519());

/**
 * The entry a LedgerKey names, as core holds it: accounts and trustlines (of credit assets); every
 * other kind is simply absent from the sandbox's ledger.
 */
export function findEntry(view: LedgerReadView, key: xdr.LedgerKey): FoundEntry | undefined {
  switch (key.switch().name) {
    case 'account': {
      const account = view.account(addressOf(key.account().accountId()));
      return account && { data: xdr.LedgerEntryData.account(accountEntry(account)), lastModifiedLedgerSeq: account.lastModifiedLedger };
    }
    case 'trustline': {
      const owner = addressOf(key.trustLine().accountId());
      const asset = creditAsset(key.trustLine().asset());
      const line = asset && view.account(owner)?.trustlines.get(assetKey(asset.code, asset.issuer));
      return line && { data: xdr.LedgerEntryData.trustline(trustLineEntry(owner, line)), lastModifiedLedgerSeq: line.lastModifiedLedger };
    }
    default:
      return undefined;
  }
}

function creditAsset(asset: xdr.TrustLineAsset): { code: string; issuer: string } | undefined {
  const arm = asset.switch().name;
  const credit =
    arm === 'assetTypeCreditAlphanum4' ? asset.alphaNum4() : arm === 'assetTypeCreditAlphanum12' ? asset.alphaNum12() : undefined;
  if (!credit) return undefined;
  return { code: credit.assetCode().toString('latin1').replace(/\0+$/, ''), issuer: addressOf(credit.issuer()) };
}

/**
 * The complete AccountEntry, with the extensions core writes: v1 (liabilities, none in the sandbox)
 * and v2 (numSponsored, numSponsoring, one sponsoring ID per signer) once sponsorship touches the
 * account, and v3 (seqLedger, seqTime) once a transaction has consumed one of its sequence numbers
 * (protocol 19 on), which needs v1 and v2 beneath it.
 */
export function accountEntry(account: Readonly<AccountEntry>): xdr.AccountEntry {
  const sequenceBumped = account.sequence !== BigInt(account.sequenceLedger) << 32n;
  const sponsored = account.numSponsored > 0 || account.numSponsoring > 0 || account.signers.some((signer) => signer.sponsor);
  let ext = new xdr.AccountEntryExt(0);
  if (sponsored || sequenceBumped) {
    const v3 = new xdr.AccountEntryExtensionV3({
      ext: new xdr.ExtensionPoint(0),
      seqLedger: account.sequenceLedger,
      seqTime: xdr.Uint64.fromString(String(account.sequenceTime)),
    });
    const v2 = new xdr.AccountEntryExtensionV2({
      numSponsored: account.numSponsored,
      numSponsoring: account.numSponsoring,
      signerSponsoringIDs: account.signers.map((signer) => (signer.sponsor ? accountIdOf(signer.sponsor) : undefined)),
      ext: sequenceBumped ? new xdr.AccountEntryExtensionV2Ext(3, v3) : new xdr.AccountEntryExtensionV2Ext(0),
    });
    const v1 = new xdr.AccountEntryExtensionV1({
      liabilities: new xdr.Liabilities({ buying: int64(0), selling: int64(0) }),
      ext: new xdr.AccountEntryExtensionV1Ext(2, v2),
    });
    ext = new xdr.AccountEntryExt(1, v1);
  }
  const { masterWeight, thresholds } = account;
  return new xdr.AccountEntry({
    accountId: accountIdOf(account.id),
    balance: int64(account.balance),
    seqNum: int64(account.sequence),
    numSubEntries: account.subentryCount,
    inflationDest: account.inflationDest ? accountIdOf(account.inflationDest) : null,
    flags: account.flags,
    homeDomain: account.homeDomain,
    thresholds: Buffer.from([masterWeight, thresholds.low, thresholds.med, thresholds.high]),
    // the sandbox keeps signers sorted by key, as core does
    signers: account.signers.map((signer) => new xdr.Signer({ key: SignerKey.decodeAddress(signer.key), weight: signer.weight })),
    ext,
  });
}

/** Balance and limit in stroops, as core keeps them. */
function trustLineEntry(owner: string, line: Readonly<Trustline>): xdr.TrustLineEntry {
  return new xdr.TrustLineEntry({
    accountId: accountIdOf(owner),
    asset: new Asset(line.code, line.issuer).toTrustLineXDRObject(),
    balance: int64(line.balance),
    limit: int64(line.limit),
    // TrustLineFlags as core keeps them: authorized / to maintain liabilities / clawback enabled
    flags: line.flags,
    ext: new xdr.TrustLineEntryExt(0),
  });
}
