import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Keypair } from '@stellar/stellar-sdk';
import { sql } from 'drizzle-orm';
import { TOTP, URI } from 'otpauth';
import { openDatabase } from '../../src/db/client';
import { adminMfa as adminMfaTable, mfaSecretBinding, wallets as walletsTable } from '../../src/db/schema';
import { webhookSecretBinding } from '../../src/security/webhook-secrets';
import { AdminMfaRepository } from '../../src/db/repositories/admin-mfa.repository';
import { AdminRepository } from '../../src/db/repositories/admin.repository';
import { SystemAccountRepository } from '../../src/db/repositories/system-account.repository';
import { UserRepository } from '../../src/db/repositories/user.repository';
import { WalletKeyRepository } from '../../src/db/repositories/wallet-key.repository';
import { WalletRepository } from '../../src/db/repositories/wallet.repository';
import { WalletCipher } from '../../src/security/wallet-cipher';
import { KeyRotationService } from '../../src/services/key-rotation.service';
import { WalletService } from '../../src/services/wallet.service';
import { PATIENCE_MS } from '../helpers/patience';
import { adminToken, bearer, createUser, type CreatedUser } from '../helpers/factories';
import { queryRows } from '../helpers/database-state';
import { startAppKeepingData } from '../helpers/test-app';
import { startLedgerSandbox, type RunningLedger } from '../helpers/sandboxes';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from '../helpers/test-app';

const newKey = () => crypto.randomBytes(32).toString('base64');
const KEY_A = newKey();
const KEY_B = newKey();
const ID_A = WalletCipher.keyIdOf(Buffer.from(KEY_A, 'base64'));
const ID_B = WalletCipher.keyIdOf(Buffer.from(KEY_B, 'base64'));

interface SealedRow {
  table: string;
  public_key: string;
  secret_ciphertext: string;
  key_id: string;
}

async function sealedRows(app: TestApp): Promise<SealedRow[]> {
  const rows: SealedRow[] = [];
  for (const table of ['wallets', 'archived_wallets', 'system_accounts']) {
    const found = await queryRows<Omit<SealedRow, 'table'>>(app.container.database, sql.raw(`select public_key, secret_ciphertext, key_id from ${table}`));
    rows.push(...found.map((r) => ({ ...r, table })));
  }
  return rows;
}

/** An admin's MFA secret as the database keeps it (admin_mfa), with the binding it opens with. */
async function mfaRows(app: TestApp): Promise<{ admin_id: string; secret_ciphertext: string; key_id: string }[]> {
  return queryRows(app.container.database, sql`select admin_id, secret_ciphertext, key_id from admin_mfa`);
}

const MFA_ADMIN = { email: 'mfa-rotation@example.com', password: 'mfa-admin-password' };

/** Provisions an admin and turns MFA on through the API; the authenticator's TOTP. */
async function enrolledAdmin(app: TestApp): Promise<TOTP> {
  await app.container.admins.provision(MFA_ADMIN.email, MFA_ADMIN.password, { adminId: null });
  const token = (await app.http.post('/api/admin/login').send(MFA_ADMIN).expect(200)).body.token as string;
  const setup = await app.http.post('/api/admin/mfa/setup').set(bearer(token)).send({ password: MFA_ADMIN.password }).expect(200);
  const totp = URI.parse(setup.body.otpauthUri as string) as TOTP;
  await app.http.post('/api/admin/mfa/confirm').set(bearer(token)).send({ otp: totp.generate() }).expect(200);
  return totp;
}

let ledger: RunningLedger;
beforeAll(async () => {
  ledger = await startLedgerSandbox();
});
afterAll(async () => {
  await ledger.stop();
});

describe('rotating the wallet encryption key while the service runs', () => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it("re-seals every wallet, archived wallet, system account, admin's MFA secret and webhook signing secret under the new key; logins keep working; a second run changes nothing", async () => {
    // Everything sealed under key A: wallets, two archived by deleting their users, the system accounts.
    app = await startTestApp({ ...ledger.env, WALLET_ENCRYPTION_KEY: KEY_A });
    const users: CreatedUser[] = [];
    for (let i = 0; i < 12; i++) users.push(await createUser(app));
    const secrets = new Map<string, string>();
    for (const u of users) {
      const profile = await app.http.get('/api/users/profile').set(bearer(u.token)).expect(200);
      secrets.set(u.ledgerPublicKey, profile.body.ledgerSecretKey as string);
    }
    await app.container.ledgerModule.bootstrap.ready();
    const admin = await adminToken(app);
    const totp = await enrolledAdmin(app);
    for (const gone of users.splice(10)) await app.http.delete(`/api/admin/users/${gone.userId}`).set(bearer(admin)).expect(200);
    const systemPublicKeys = (await sealedRows(app)).filter((r) => r.table === 'system_accounts').map((r) => r.public_key);
    expect(systemPublicKeys).toHaveLength(2);
    expect(new Set((await sealedRows(app)).map((r) => r.key_id))).toEqual(new Set([ID_A]));
    expect((await mfaRows(app)).map((r) => r.key_id)).toEqual([ID_A]);
    // A webhook endpoint's signing secret, sealed under A too.
    const endpoint = (await app.http.post('/api/admin/webhook-endpoints').set(bearer(admin)).send({ url: 'http://127.0.0.1:9/hooks' }).expect(201)).body;
    await app.close();

    // The service restarted with B current and A previous: old rows still open.
    app = await startAppKeepingData({ ...ledger.env, WALLET_ENCRYPTION_KEY: KEY_B, WALLET_ENCRYPTION_KEY_PREVIOUS: KEY_A });
    const running = app;
    const rotation = new KeyRotationService(
      new WalletKeyRepository(running.container.database.db),
      new WalletCipher(Buffer.from(KEY_B, 'base64'), [Buffer.from(KEY_A, 'base64')]),
    );
    let batches = 0;
    let done = false;
    const traffic: number[] = [];
    const regulars = users.slice(0, 5);
    const serve = async () => {
      // Logins and profiles (which open the wallet) for as long as the rotation runs, and a little beyond.
      for (let i = 0; !done || i < 3; i++) {
        const u = regulars[i % regulars.length]!;
        const login = await running.http.post('/api/users/login').send({ identifier: u.email, password: u.password });
        const profile = await running.http.get('/api/users/profile').set(bearer(login.body.token as string));
        traffic.push(login.status, profile.status);
        expect(profile.body.ledgerSecretKey).toBe(secrets.get(u.ledgerPublicKey));
      }
    };
    const [report] = await Promise.all([
      rotation.rotate({ batchSize: 3, onBatch: () => void batches++ }).finally(() => (done = true)),
      serve(),
      // Meanwhile a user signs up (sealed under B at once) and one is deleted (archived as it is).
      (async () => {
        const late = await createUser(running);
        const profile = await running.http.get('/api/users/profile').set(bearer(late.token)).expect(200);
        secrets.set(late.ledgerPublicKey, profile.body.ledgerSecretKey as string);
        await running.http.delete(`/api/admin/users/${users.pop()!.userId}`).set(bearer(await adminToken(running))).expect(200);
      })(),
    ]);

    expect(new Set(traffic)).toEqual(new Set([200]));
    expect(traffic.length).toBeGreaterThanOrEqual(6);
    expect(batches).toBeGreaterThanOrEqual(4); // small batches: 10+ wallets at 3 a batch
    expect(report.currentKeyId).toBe(ID_B);
    expect(report.tables.system_accounts).toEqual({ resealed: 2, changedMeanwhile: 0, unreadable: 0 });
    expect(report.tables.admin_mfa).toEqual({ resealed: 1, changedMeanwhile: 0, unreadable: 0 });
    expect(report.tables.webhook_endpoints).toEqual({ resealed: 1, changedMeanwhile: 0, unreadable: 0 });
    expect(report.tables.wallets.unreadable + report.tables.archived_wallets.unreadable).toBe(0);
    // 10 wallets and 2 archives under A at the start; the concurrent delete moves one of them, in either table.
    expect(report.tables.wallets.resealed + report.tables.archived_wallets.resealed + report.tables.wallets.changedMeanwhile).toBeGreaterThanOrEqual(12);
    expect(report.remaining).toEqual({ wallets: {}, archived_wallets: {}, system_accounts: {}, admin_mfa: {}, webhook_endpoints: {} });

    // Every row now under B, opening with B alone to the same secret, bound to its own public key.
    const rows = await sealedRows(running);
    expect(rows).toHaveLength(10 + 3 + 2); // 10 wallets (one signed up, one deleted meanwhile), 3 archived, 2 system accounts
    const onlyB = new WalletCipher(Buffer.from(KEY_B, 'base64'));
    for (const row of rows) {
      expect(row.key_id).toBe(ID_B);
      const secret = onlyB.open({ ciphertext: row.secret_ciphertext, keyId: row.key_id }, row.public_key);
      expect(Keypair.fromSecret(secret).publicKey()).toBe(row.public_key);
      if (row.table !== 'system_accounts') expect(secret).toBe(secrets.get(row.public_key));
    }
    // The admin's TOTP secret too: under B, opening to the authenticator's secret, bound to its admin.
    const [mfa] = await mfaRows(running);
    expect(mfa!.key_id).toBe(ID_B);
    expect(onlyB.open({ ciphertext: mfa!.secret_ciphertext, keyId: mfa!.key_id }, mfaSecretBinding(mfa!.admin_id))).toBe(totp.secret.base32);
    // And the webhook endpoint's signing secret: under B, opening to the secret answered at registration.
    const [hook] = await queryRows<{ id: string; secret_ciphertext: string; key_id: string }>(running.container.database, sql`select id, secret_ciphertext, key_id from webhook_endpoints`);
    expect(hook!.key_id).toBe(ID_B);
    expect(onlyB.open({ ciphertext: hook!.secret_ciphertext, keyId: hook!.key_id }, webhookSecretBinding(hook!.id))).toBe(endpoint.secret);

    // Idempotent: nothing left to do.
    const again = await rotation.rotate({ batchSize: 3 });
    expect(again.tables).toEqual({
      wallets: { resealed: 0, changedMeanwhile: 0, unreadable: 0 },
      archived_wallets: { resealed: 0, changedMeanwhile: 0, unreadable: 0 },
      system_accounts: { resealed: 0, changedMeanwhile: 0, unreadable: 0 },
      admin_mfa: { resealed: 0, changedMeanwhile: 0, unreadable: 0 },
      webhook_endpoints: { resealed: 0, changedMeanwhile: 0, unreadable: 0 },
    });
    expect(await sealedRows(running)).toEqual(rows);
    await running.close();

    // Key A can now be dropped: logins, profiles and the ledger's system accounts work with B alone.
    app = await startAppKeepingData({ ...ledger.env, WALLET_ENCRYPTION_KEY: KEY_B });
    const survivor = users[0]!;
    const login = await app.http.post('/api/users/login').send({ identifier: survivor.username, password: survivor.password }).expect(200);
    const profile = await app.http.get('/api/users/profile').set(bearer(login.body.token as string)).expect(200);
    expect(profile.body.ledgerSecretKey).toBe(secrets.get(survivor.ledgerPublicKey));
    const issued = await app.http.post('/api/ledger/create-asset').set(bearer(await adminToken(app))).send({ assetCode: 'WLT', amount: '5' });
    expect(issued.status).toBe(200);
    expect(systemPublicKeys).toContain((await app.container.ledgerModule.bootstrap.ready()).keys.distribution.publicKey());
    // The admin logs in with a code of the authenticator, its secret read under B alone (a step
    // after the one the confirmation spent: within the one step of drift the service allows).
    await app.http.post('/api/admin/login').send({ ...MFA_ADMIN, otp: totp.generate({ timestamp: Date.now() + 30_000 }) }).expect(200);
  });

  it('leaves rows it cannot open alone and reports them, so the old key is never dropped too early', async () => {
    app = await startTestApp({ WALLET_ENCRYPTION_KEY: KEY_A });
    const db = app.container.database;
    const users = new UserRepository(db.db);
    const wallets = new WalletService(new WalletRepository(db.db), new WalletCipher(Buffer.from(KEY_A, 'base64')));
    await db.db.transaction(async (tx) => {
      const user = await users.insert(tx, { username: 'keyless', email: 'keyless@example.com', passwordHash: 'x', firstName: 'K', lastName: 'L' });
      await wallets.createFor(tx, user.id);
    });
    // A rotation to B configured with some other previous key, not A: A's row cannot be opened.
    const rotation = new KeyRotationService(new WalletKeyRepository(db.db), new WalletCipher(Buffer.from(KEY_B, 'base64'), [Buffer.from(newKey(), 'base64')]));
    const report = await rotation.rotate();
    expect(report.tables.wallets).toEqual({ resealed: 0, changedMeanwhile: 0, unreadable: 1 });
    expect(report.remaining.wallets).toEqual({ [ID_A]: 1 });
  });
});

describe('npm run wallet:rotate-key', () => {
  const run = (dataDir: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        'npm',
        ['run', '--silent', 'wallet:rotate-key', '--', '--batch-size', '2'],
        {
          cwd: path.resolve(__dirname, '../..'),
          env: {
            ...process.env,
            NODE_OPTIONS: '',
            DATA_DIR: dataDir,
            DATABASE_URL: '',
            JWT_SECRET: TEST_JWT_SECRET,
            WALLET_ENCRYPTION_KEY: KEY_B,
            WALLET_ENCRYPTION_KEY_PREVIOUS: KEY_A,
            LOG_LEVEL: 'silent',
          },
          // Killed only after the suite's patience: a hung command fails the test with its output,
          // and is not left running.
          timeout: PATIENCE_MS,
        },
        (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  it('re-encrypts an embedded database while another process uses its server, and finds nothing the second time', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rotate-cli-'));
    // This process starts DATA_DIR's embedded server, as the service would, and keeps it open:
    // the command connects to that server rather than starting a second one.
    const db = await openDatabase({ dataDir });
    try {
      // Seal three wallets, an archived one and a system account under A.
      const cipherA = new WalletCipher(Buffer.from(KEY_A, 'base64'));
      const userRepo = new UserRepository(db.db);
      const walletRepo = new WalletRepository(db.db);
      const walletService = new WalletService(walletRepo, cipherA);
      for (let i = 0; i < 4; i++) {
        await db.db.transaction(async (tx) => {
          const user = await userRepo.insert(tx, { username: `cli_${i}`, email: `cli${i}@example.com`, passwordHash: 'x', firstName: 'C', lastName: 'L' });
          await walletService.createFor(tx, user.id);
          if (i === 3) {
            const wallet = await walletRepo.remove(tx, user.id);
            await walletRepo.archive(tx, wallet!, { username: user.username, email: user.email });
          }
        });
      }
      const issuer = Keypair.random();
      const sealed = cipherA.seal(issuer.secret(), issuer.publicKey());
      await new SystemAccountRepository(db.db).insertOnce({ name: 'issuer', publicKey: issuer.publicKey(), secretCiphertext: sealed.ciphertext, keyId: sealed.keyId });
      // And an admin's MFA secret.
      const mfaAdmin = await new AdminRepository(db.db).insert('cli-mfa@example.com', 'x');
      const mfaSecret = cipherA.seal('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', mfaSecretBinding(mfaAdmin.id));
      await new AdminMfaRepository(db.db).startEnrolment(mfaAdmin.id, { secretCiphertext: mfaSecret.ciphertext, keyId: mfaSecret.keyId });

      const first = await run(dataDir);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toContain(`current key id ${ID_B}; previous key ids: ${ID_A}`);
      expect(first.stdout).toContain('wallets: 3 re-encrypted, 0 changed meanwhile, 0 unreadable');
      expect(first.stdout).toContain('archived_wallets: 1 re-encrypted, 0 changed meanwhile, 0 unreadable');
      expect(first.stdout).toContain('system_accounts: 1 re-encrypted, 0 changed meanwhile, 0 unreadable');
      expect(first.stdout).toContain('admin_mfa: 1 re-encrypted, 0 changed meanwhile, 0 unreadable');
      expect(first.stdout).toContain('remaining under other keys: none');

      const second = await run(dataDir);
      expect(second.code).toBe(0);
      expect(second.stdout).toContain('wallets: 0 re-encrypted, 0 changed meanwhile, 0 unreadable');
      expect(second.stdout).toContain('system_accounts: 0 re-encrypted');
      expect(second.stdout).toContain('admin_mfa: 0 re-encrypted');

      // The command left the server running for this process, which reads the result on it.
      const onlyB = new WalletCipher(Buffer.from(KEY_B, 'base64'));
      const rows = await db.db.select().from(walletsTable);
      expect(rows).toHaveLength(3);
      for (const row of rows) {
        expect(row.keyId).toBe(ID_B);
        expect(Keypair.fromSecret(onlyB.open({ ciphertext: row.secretCiphertext, keyId: row.keyId }, row.publicKey)).publicKey()).toBe(row.publicKey);
      }
      const [mfa] = await db.db.select().from(adminMfaTable);
      expect(onlyB.open({ ciphertext: mfa!.secretCiphertext, keyId: mfa!.keyId }, mfaSecretBinding(mfa!.adminId))).toBe('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
    } finally {
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
