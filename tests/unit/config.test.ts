import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, parseEnv } from '../../src/config/env';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'wallet-config-'));

describe('configuration', () => {
  it('starts with nothing set: defaults and secrets generated once into DATA_DIR', () => {
    const dir = tmp();
    const first = loadConfig({ DATA_DIR: dir });
    expect(first.port).toBe(3000);
    expect(first.publicBaseUrl).toBe('http://localhost:3000');
    expect(first.ledger.tokenCode).toBe('WLT');
    expect(first.databaseUrl).toBeUndefined();
    expect(first.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(first.walletKeys.current).toHaveLength(32);
    const second = loadConfig({ DATA_DIR: dir });
    expect(second.jwtSecret).toBe(first.jwtSecret);
    expect(second.walletKeys.current.equals(first.walletKeys.current)).toBe(true);
  });

  it.each([
    ['PORT', 'abc'],
    ['DATABASE_URL', 'mysql://x'],
    ['WALLET_ENCRYPTION_KEY', 'too-short'],
    ['TOKEN_CODE', 'TOOLONG'],
    ['LOG_LEVEL', 'loud'],
    ['ISSUER_SECRET', 'not-a-seed'],
    ['WALLET_STARTING_XLM', '1.123456789'],
  ])('stops on a bad %s, naming it', (name, value) => {
    expect(() => parseEnv({ [name]: value })).toThrow(ConfigError);
    expect(() => parseEnv({ [name]: value })).toThrow(name);
  });

  /** Everything production requires. */
  const production = () => ({
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://db/wallet',
    HORIZON_URL: 'https://horizon-testnet.stellar.org',
    PAYSTACK_SECRET_KEY: 'sk_live_x',
    SMTP_URL: 'smtps://mail.example:465',
    JWT_SECRET: 'j'.repeat(40),
    WALLET_ENCRYPTION_KEY: crypto.randomBytes(32).toString('base64'),
    ISSUER_SECRET: `S${'A'.repeat(55)}`,
    DISTRIBUTION_SECRET: `S${'B'.repeat(55)}`,
    MINT_APPROVAL_THRESHOLD: '10000',
  });

  it('refuses production with sandboxes or generated secrets, naming what is missing', () => {
    expect(() => parseEnv({ NODE_ENV: 'production' })).toThrow(/DATABASE_URL.*STELLAR_RPC_URL \(or HORIZON_URL\).*PAYSTACK_SECRET_KEY.*SMTP_URL.*JWT_SECRET.*MINT_APPROVAL_THRESHOLD/);
    const complete = production();
    expect(parseEnv(complete).NODE_ENV).toBe('production');
    const config = loadConfig({ ...complete, DATA_DIR: tmp() });
    expect(config.requireHttpsForSecrets).toBe(true);
    // Admin MFA is required in production unless ADMIN_MFA_REQUIRED says otherwise; elsewhere only when it says so.
    expect(config.adminMfaRequired).toBe(true);
    expect(loadConfig({ ...complete, DATA_DIR: tmp(), ADMIN_MFA_REQUIRED: 'false' }).adminMfaRequired).toBe(false);
    expect(loadConfig({ DATA_DIR: tmp() }).adminMfaRequired).toBe(false);
    expect(loadConfig({ DATA_DIR: tmp(), ADMIN_MFA_REQUIRED: 'true' }).adminMfaRequired).toBe(true);
    expect(() => parseEnv({ ADMIN_MFA_REQUIRED: 'yes' })).toThrow(/ADMIN_MFA_REQUIRED/);
  });

  describe('MINT_APPROVAL_THRESHOLD', () => {
    it('refuses production without it: one admin password alone would create money', () => {
      const withoutThreshold: Record<string, string | undefined> = { ...production(), MINT_APPROVAL_THRESHOLD: undefined };
      expect(() => parseEnv(withoutThreshold)).toThrow(ConfigError);
      expect(() => parseEnv(withoutThreshold)).toThrow(/NODE_ENV=production refuses .*; set MINT_APPROVAL_THRESHOLD$/);
      expect(parseEnv({ ...withoutThreshold, MINT_APPROVAL_THRESHOLD: '0' }).MINT_APPROVAL_THRESHOLD).toBe('0');
    });

    it('is tokens as decimal text, read as exact stroops; 0 means every mint; unset means none', () => {
      expect(loadConfig({ DATA_DIR: tmp() }).mintApprovalThresholdStroops).toBeUndefined();
      expect(loadConfig({ DATA_DIR: tmp(), MINT_APPROVAL_THRESHOLD: '0' }).mintApprovalThresholdStroops).toBe(0n);
      expect(loadConfig({ DATA_DIR: tmp(), MINT_APPROVAL_THRESHOLD: '1000.0000001' }).mintApprovalThresholdStroops).toBe(10_000_000_001n);
      expect(loadConfig({ DATA_DIR: tmp(), MINT_APPROVAL_THRESHOLD: '922337203685.4775807' }).mintApprovalThresholdStroops).toBe(9_223_372_036_854_775_807n);
    });

    it.each(['-1', '1e3', '1.12345678', 'ten', '922337203685.4775808', '1000000000000'])('refuses %p, naming it', (value) => {
      expect(() => parseEnv({ MINT_APPROVAL_THRESHOLD: value })).toThrow(/MINT_APPROVAL_THRESHOLD: must be/);
    });
  });

  describe('WEB_CONCURRENCY', () => {
    it('runs one process by default; auto is one per CPU this process may use', () => {
      expect(loadConfig({ DATA_DIR: tmp() }).webConcurrency).toBe(1);
      expect(loadConfig({ DATA_DIR: tmp(), WEB_CONCURRENCY: '3' }).webConcurrency).toBe(3);
      expect(loadConfig({ DATA_DIR: tmp(), WEB_CONCURRENCY: 'auto' }).webConcurrency).toBe(os.availableParallelism());
    });

    it.each(['0', '-2', '1.5', 'two', 'max', '1e3'])('refuses %p, saying what it takes', (value) => {
      expect(() => parseEnv({ WEB_CONCURRENCY: value })).toThrow(/WEB_CONCURRENCY: must be a whole number of service processes, 1 or more, or auto/);
    });

    it('shares the password hashing threads out among the processes unless PASSWORD_HASH_THREADS says', () => {
      const cores = os.availableParallelism();
      expect(loadConfig({ DATA_DIR: tmp() }).passwordHashThreads).toBeUndefined();
      expect(loadConfig({ DATA_DIR: tmp(), WEB_CONCURRENCY: String(cores * 2) }).passwordHashThreads).toBe(1);
      expect(loadConfig({ DATA_DIR: tmp(), WEB_CONCURRENCY: '2', PASSWORD_HASH_THREADS: '3' }).passwordHashThreads).toBe(3);
    });
  });

  it('treats empty values as unset', () => {
    expect(parseEnv({ DATABASE_URL: '', PORT: '' }).PORT).toBe(3000);
  });

  describe('outside systems', () => {
    const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: tmp(), JWT_SECRET: 'j'.repeat(40), ...env });

    it('uses the embedded ledger and provider when no URL or key is set, at this service\'s own address', () => {
      const config = load({ PORT: '4100' });
      expect(config.ledger).toMatchObject({
        embedded: true,
        api: 'rpc',
        url: 'http://127.0.0.1:4100/sandbox/rpc',
        networkPassphrase: 'Wallet Sandbox Network ; 2026',
        friendbotUrl: 'http://127.0.0.1:4100/sandbox/horizon/friendbot',
      });
      expect(config.payments.provider).toEqual({
        embedded: true,
        baseUrl: 'http://localhost:4100/sandbox/paystack',
        // derived from JWT_SECRET: stable across restarts
        secretKey: `sk_test_sandbox_${crypto.createHash('sha256').update('j'.repeat(40)).digest('hex').slice(0, 24)}`,
      });
    });

    it('knows testnet and the public network by their Horizon hosts', () => {
      expect(load({ HORIZON_URL: 'https://horizon-testnet.stellar.org' }).ledger).toMatchObject({
        embedded: false,
        networkPassphrase: 'Test SDF Network ; September 2015',
        friendbotUrl: 'https://friendbot.stellar.org',
      });
      const pub = load({ HORIZON_URL: 'https://horizon.stellar.org' }).ledger;
      expect(pub.networkPassphrase).toBe('Public Global Stellar Network ; September 2015');
      expect(pub.friendbotUrl).toBeUndefined();
    });

    it('speaks Stellar RPC at STELLAR_RPC_URL; testnet RPC brings its passphrase and friendbot', () => {
      expect(load({ STELLAR_RPC_URL: 'https://soroban-testnet.stellar.org' }).ledger).toEqual(
        expect.objectContaining({ embedded: false, api: 'rpc', url: 'https://soroban-testnet.stellar.org', networkPassphrase: 'Test SDF Network ; September 2015', friendbotUrl: 'https://friendbot.stellar.org' }),
      );
      expect(load({ HORIZON_URL: 'https://horizon-testnet.stellar.org' }).ledger.api).toBe('horizon');
    });

    it('refuses STELLAR_RPC_URL and HORIZON_URL together, and a mainnet RPC without its passphrase', () => {
      expect(() => load({ STELLAR_RPC_URL: 'https://rpc.example.org', HORIZON_URL: 'https://horizon.example.org', STELLAR_NETWORK_PASSPHRASE: 'x' })).toThrow(/set one of them/);
      expect(() => load({ STELLAR_RPC_URL: 'https://mainnet.rpc.example.org' })).toThrow(/STELLAR_NETWORK_PASSPHRASE: required for a STELLAR_RPC_URL/);
    });

    it('refuses another Horizon without STELLAR_NETWORK_PASSPHRASE, naming the variable', () => {
      expect(() => load({ HORIZON_URL: 'https://horizon.example.org' })).toThrow(ConfigError);
      expect(() => load({ HORIZON_URL: 'https://horizon.example.org' })).toThrow(/STELLAR_NETWORK_PASSPHRASE/);
      expect(load({ HORIZON_URL: 'https://horizon.example.org', STELLAR_NETWORK_PASSPHRASE: 'Private ; 1' }).ledger.networkPassphrase).toBe('Private ; 1');
    });

    it("refuses a test-mode Paystack key with Stellar's public network (test cards would mint real tokens), and allows it on testnet", () => {
      const publicNetwork = { PAYSTACK_SECRET_KEY: 'sk_test_abc' };
      expect(() => load({ ...publicNetwork, HORIZON_URL: 'https://horizon.stellar.org' })).toThrow(/test-mode key \(sk_test_\).*public network/);
      expect(() =>
        load({ ...publicNetwork, STELLAR_RPC_URL: 'https://rpc.example.org', STELLAR_NETWORK_PASSPHRASE: 'Public Global Stellar Network ; September 2015' }),
      ).toThrow(ConfigError);
      expect(load({ ...publicNetwork, HORIZON_URL: 'https://horizon-testnet.stellar.org' }).payments.provider.secretKey).toBe('sk_test_abc');
      expect(load({ PAYSTACK_SECRET_KEY: 'sk_live_abc', HORIZON_URL: 'https://horizon.stellar.org' }).ledger.networkPassphrase).toBe('Public Global Stellar Network ; September 2015');
    });

    it('uses Paystack with the configured key and base URL', () => {
      expect(load({ PAYSTACK_SECRET_KEY: 'sk_live_x', PAYSTACK_BASE_URL: 'https://api.paystack.co/' }).payments.provider).toEqual({
        embedded: false,
        baseUrl: 'https://api.paystack.co',
        secretKey: 'sk_live_x',
      });
    });
  });
});
