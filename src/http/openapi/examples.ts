/**
 * Example values shared by the OpenAPI examples. They are shaped like real ones (the public keys
 * pass the checksum, the ids are v4 UUIDs) but belong to nothing: the secret key is a placeholder.
 */
export const EXAMPLE = {
  userId: '716e1631-6b18-47b5-8d75-a5589a2575b4',
  adminId: '7b4982ee-da1a-442a-982c-41797706f0c6',
  transactionId: 'bb58cf54-ae91-4e9c-8dfb-b8f0ba090933',
  publicKey: 'GBOBNVHWT4UAQK4BSMEKCXRUVIQAXOPIH3S22BANHKMWRTYEJP4FLTFI',
  receiverPublicKey: 'GDMMAKHXSEYB2GSGRPLZJHAQA56UT7LGCCZCY745KGRASREFWW6YASFR',
  issuerPublicKey: 'GAWX42OQLRR53R6DEB2G34R4SSMF7JEH742FHBAVOAUCBJMMYYSCL65V',
  secretKey: 'SEXAMPLESECRETKEYEXAMPLESECRETKEYEXAMPLESECRETKEYEXAMPLE',
  txHash: '3839ac597416bda9cb2045d45083e2eb566911dea784cf87b4f3bec29ae38e32',
  jwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI3MTZlMTYzMSIsInJvbGUiOiJ1c2VyIn0.c2lnbmF0dXJl',
  reference: 'wlt-0d3f5c7a-8e21-4b6c-9f4d-2a7b1c9e5f30',
  payoutAccountId: '283e4ddf-e0ad-4c02-b7f2-6c92bb13d5de',
  withdrawalId: '1b2a5584-b9b6-42e0-8fd3-b4317e9fe41c',
  approvalId: '5f0c2b7e-3a1d-4c8e-9b6f-7d2e1a4c8b39',
  secondAdminId: 'c3e1f9a2-6b4d-4e7f-8a1c-2d9b5e7f3a60',
  createdAt: '2025-01-15T10:30:00.000Z',
  outsidePublicKey: 'GCKZWFPFJDRN7O5DSRLKW73QY3MNJELYOWF4I7NCWSKLS5PCNVZOUDU2',
  movementId: 'db57e804-5ee1-42a5-964b-6941fc99b18b',
  movementTxHash: '8f72b361bd2f0e58c21b336a6fa389016343f83bf00558a7f2e265288a91cedb',
  username: 'ada_lovelace',
  email: 'ada@example.com',
} as const;

export const exampleProfile = {
  username: EXAMPLE.username,
  email: EXAMPLE.email,
  firstName: 'Ada',
  lastName: 'Lovelace',
  ledgerPublicKey: EXAMPLE.publicKey,
};

/** A record as both lists answer it: a transfer the user sent through the service. */
const exampleRecord = {
  transactionId: EXAMPLE.transactionId,
  ledgerTransactionId: EXAMPLE.txHash,
  from: EXAMPLE.publicKey,
  to: EXAMPLE.receiverPublicKey,
  assetAmount: 20,
  assetCode: 'WLT',
  userId: EXAMPLE.userId,
  createdAt: EXAMPLE.createdAt,
  status: 'confirmed',
};

/** The transfer in its sender's list. */
export const exampleTransaction = { ...exampleRecord, direction: 'out', origin: 'service' };

/** A payment to the user's wallet from an account outside the service, seen on the ledger. */
export const exampleReceivedMovement = {
  transactionId: EXAMPLE.movementId,
  ledgerTransactionId: EXAMPLE.movementTxHash,
  from: EXAMPLE.outsidePublicKey,
  to: EXAMPLE.publicKey,
  assetAmount: 5,
  assetCode: 'WLT',
  userId: EXAMPLE.userId,
  createdAt: '2025-01-15T09:12:05.000Z',
  status: 'confirmed',
  direction: 'in',
  origin: 'ledger',
};

/** The transfer in the admin's list: no direction, the owner nested. */
export const exampleAdminTransaction = { ...exampleRecord, origin: 'service', user: { username: EXAMPLE.username, email: EXAMPLE.email } };

/** A bank account withdrawals go to, as the sandbox provider resolves 0123456789 at Guaranty Trust Bank. */
export const examplePayoutAccount = {
  payoutAccountId: EXAMPLE.payoutAccountId,
  bankName: 'Guaranty Trust Bank',
  bankCode: '058',
  accountNumber: '0123456789',
  accountName: 'FUNMILAYO OKAFOR',
  createdAt: EXAMPLE.createdAt,
};

/** A withdrawal of 2500 tokens at TOKENS_PER_NAIRA=1, paid. */
export const exampleWithdrawal = {
  withdrawalId: EXAMPLE.withdrawalId,
  status: 'paid',
  amount: '2500.0000000',
  naira: '2500.00',
  payoutAccountId: EXAMPLE.payoutAccountId,
  bankName: examplePayoutAccount.bankName,
  accountNumber: examplePayoutAccount.accountNumber,
  accountName: examplePayoutAccount.accountName,
  reason: null,
  createdAt: EXAMPLE.createdAt,
  updatedAt: '2025-01-15T10:30:04.000Z',
};
