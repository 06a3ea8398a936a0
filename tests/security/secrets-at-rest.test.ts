import crypto from 'node:crypto';
import { Keypair } from '@stellar/stellar-sdk';
import { sql } from 'drizzle-orm';
import { WalletCipher } from '../../src/security/wallet-cipher';
import { adminToken, bearer, createUser, type CreatedUser } from '../helpers/factories';
import { queryRows, tableNames } from '../helpers/database-state';
import { startLedgerSandbox, type RunningLedger } from '../helpers/sandboxes';
import { stellarSeedsIn } from '../helpers/secret-patterns';
import { startTestApp, TEST_WALLET_KEY, type TestApp } from '../helpers/test-app';

const CIPHERTEXT = /^v1\.[A-Za-z0-9+/]{16}\.[A-Za-z0-9+/]{22}==\.[A-Za-z0-9+/=]{40,}$/;

interface SealedRow {
  table: string;
  public_key: string;
  secret_ciphertext: string;
  key_id: string;
}

let ledger: RunningLedger;
let app: TestApp;
let users: CreatedUser[];
/** Secret keys as the two secret-bearing responses give them, by public key. */
const shown = new Map<string, string>();

beforeAll(async () => {
  ledger = await startLedgerSandbox();
  app = await startTestApp(ledger.env);
  users = [await createUser(app), await createUser(app), await createUser(app)];
  const admin = await adminToken(app);
  for (const u of users) {
    const wallet = await app.http.get(`/api/admin/users/${u.userId}/wallet`).set(bearer(admin)).expect(200);
    shown.set(u.ledgerPublicKey, wallet.body.ledgerSecretKey as string);
  }
  await app.container.ledgerModule.bootstrap.ready(); // issuer and distribution generated and sealed
  await app.http.delete(`/api/admin/users/${users[2]!.userId}`).set(bearer(admin)).expect(200); // archived
});
afterAll(async () => {
  await app.close();
  await ledger.stop();
});

async function sealedRows(): Promise<SealedRow[]> {
  const rows: SealedRow[] = [];
  for (const table of ['wallets', 'archived_wallets', 'system_accounts']) {
    const found = await queryRows<Omit<SealedRow, 'table'>>(app.container.database, sql.raw(`select public_key, secret_ciphertext, key_id from ${table}`));
    rows.push(...found.map((r) => ({ ...r, table })));
  }
  return rows;
}

describe('secret keys at rest', () => {
  it('are AES-256-GCM ciphertext in wallets, archived_wallets and system_accounts, under the configured key id', async () => {
    const rows = await sealedRows();
    expect(rows.map((r) => r.table).sort()).toEqual(['archived_wallets', 'system_accounts', 'system_accounts', 'wallets', 'wallets']);
    const keyId = WalletCipher.keyIdOf(Buffer.from(TEST_WALLET_KEY, 'base64'));
    for (const row of rows) {
      expect(row.secret_ciphertext).toMatch(CIPHERTEXT);
      expect(stellarSeedsIn(row.secret_ciphertext)).toEqual([]);
      expect(row.key_id).toBe(keyId);
    }
    // Two sealings of one secret differ (a fresh nonce each time): nothing to compare rows by.
    expect(new Set(rows.map((r) => r.secret_ciphertext.split('.')[1])).size).toBe(rows.length);
  });

  it('open with the key to the very secret the API shows, and with nothing else', async () => {
    const cipher = new WalletCipher(Buffer.from(TEST_WALLET_KEY, 'base64'));
    const otherKey = crypto.randomBytes(32);
    const impostor = new WalletCipher(otherKey);
    const rows = await sealedRows();
    for (const row of rows) {
      const secret = cipher.open({ ciphertext: row.secret_ciphertext, keyId: row.key_id }, row.public_key);
      expect(Keypair.fromSecret(secret).publicKey()).toBe(row.public_key);
      if (row.table !== 'system_accounts') expect(secret).toBe(shown.get(row.public_key));
      // Another key under the same id: the GCM tag refuses it.
      expect(() => impostor.open({ ciphertext: row.secret_ciphertext, keyId: impostor.currentKeyId }, row.public_key)).toThrow();
      // An unknown key id: refused before any decryption.
      expect(() => impostor.open({ ciphertext: row.secret_ciphertext, keyId: row.key_id }, row.public_key)).toThrow(/not configured/);
      // The public key is bound as associated data: the ciphertext copied onto another wallet's row does not open.
      const elsewhere = rows.find((r) => r.public_key !== row.public_key)!;
      expect(() => cipher.open({ ciphertext: row.secret_ciphertext, keyId: row.key_id }, elsewhere.public_key)).toThrow();
    }
  });

  it('appear nowhere in plain text: no table holds a secret seed, a password or a JWT', async () => {
    const everything: string[] = [];
    for (const table of await tableNames(app.container.database)) {
      const rows = await queryRows<{ row: string }>(app.container.database, sql.raw(`select t::text as row from "${table}" t`));
      everything.push(...rows.map((r) => `${table}: ${r.row}`));
    }
    expect(everything.length).toBeGreaterThanOrEqual(8); // 2 users, an admin, 2 wallets, an archive, 2 system accounts
    const dump = everything.join('\n');
    expect(stellarSeedsIn(dump)).toEqual([]);
    for (const u of users) {
      expect(dump).not.toContain(u.password);
      expect(dump).not.toContain(u.token);
    }
    for (const secret of shown.values()) expect(dump).not.toContain(secret);
    // Passwords are bcrypt hashes.
    const hashes = await queryRows<{ password_hash: string }>(app.container.database, sql`select password_hash from users union all select password_hash from admins`);
    for (const { password_hash } of hashes) expect(password_hash).toMatch(/^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/);
  });
});
