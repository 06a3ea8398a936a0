import path from 'node:path';
import type { Express } from 'express';
import { createApp } from './app';
import { Mailer } from './clients/mailer';
import type { Config } from './config/env';
import { openDatabase, type DatabaseHandle } from './db/client';
import { AdminRepository } from './db/repositories/admin.repository';
import { PasswordResetRepository } from './db/repositories/password-reset.repository';
import { TransactionRepository } from './db/repositories/transaction.repository';
import { UserRepository } from './db/repositories/user.repository';
import { WalletRepository } from './db/repositories/wallet.repository';
import type { Logger } from './logger';
import { authenticate } from './middleware/auth';
import { adminRoutes } from './routes/admin.routes';
import { usersRoutes } from './routes/users.routes';
import { createPasswordHasher, type PasswordHasher } from './security/password-hasher';
import { TokenService } from './security/tokens';
import { WalletCipher } from './security/wallet-cipher';
import { AdminService } from './services/admin.service';
import { PasswordResetService } from './services/password-reset.service';
import { UserService } from './services/user.service';
import { noLedgerActivator, WalletService } from './services/wallet.service';

export interface Container {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  hasher: PasswordHasher;
  tokens: TokenService;
  mailer: Mailer;
  users: UserService;
  admins: AdminService;
  wallets: WalletService;
  app: Express;
  close(): Promise<void>;
}

export interface ContainerOptions {
  /** An already open database (tests share one per worker); otherwise opened from config. */
  database?: DatabaseHandle;
}

/** Wires every dependency from the configuration: the one place that knows the whole graph. */
export async function buildContainer(config: Config, logger: Logger, options: ContainerOptions = {}): Promise<Container> {
  const database =
    options.database ??
    (await openDatabase({ url: config.databaseUrl, pgliteDir: path.join(config.dataDir, 'pg'), poolSize: config.databasePoolSize }));
  const { db } = database;

  const hasher = createPasswordHasher({ cost: config.bcryptCost, threads: config.passwordHashThreads });
  const tokens = new TokenService(config.jwtSecret);
  const cipher = new WalletCipher(config.walletKeys.current, config.walletKeys.previous);
  const mailer = new Mailer({ smtpUrl: config.mail.smtpUrl, from: config.mail.from, outboxDir: config.mail.outboxDir, logger });

  const userRepo = new UserRepository(db);
  const walletRepo = new WalletRepository(db);
  const wallets = new WalletService(walletRepo, cipher);
  const users = new UserService(db, userRepo, wallets, noLedgerActivator, hasher, tokens);
  const resets = new PasswordResetService(db, userRepo, new PasswordResetRepository(db), hasher, tokens, mailer, config.publicBaseUrl);
  const admins = new AdminService(db, new AdminRepository(db), userRepo, walletRepo, wallets, new TransactionRepository(db), hasher, tokens);

  const requireRole = authenticate(tokens, (p) => (p.role === 'admin' ? admins.exists(p.id) : users.exists(p.id)));
  const common = { authRateLimit: config.authRateLimit, requireHttpsForSecrets: config.requireHttpsForSecrets };

  const app = createApp({
    logger,
    guards: { requireRole },
    routeGroups: {
      '/api/users': usersRoutes({ users, resets, ...common }),
      '/api/admin': adminRoutes({ admins, ...common }),
    },
    corsOrigins: config.corsOrigins,
    trustProxy: config.trustProxy,
    ready: async () => {
      await db.execute('select 1');
      return true;
    },
  });

  return {
    config,
    logger,
    database,
    hasher,
    tokens,
    mailer,
    users,
    admins,
    wallets,
    app,
    async close() {
      mailer.close();
      await hasher.close();
      if (!options.database) await database.close();
    },
  };
}
