// The composition root: it only wires. Configuration derivations live in config/, the embedded
// sandboxes in config/embedded-sandboxes.ts, the ledger journal's many settings in composition/ledger.ts.
import type { Express } from 'express';
import { createApp } from './app';
import { Mailer } from './clients/mailer';
import type { Config } from './config/env';
import { openDatabase, type DatabaseHandle } from './db/client';
import { AdminRepository } from './db/repositories/admin.repository';
import { AdminLogRepository } from './db/repositories/admin-log.repository';
import { AdminMfaRepository } from './db/repositories/admin-mfa.repository';
import { RecoveryCodeRepository } from './db/repositories/recovery-code.repository';
import { ApprovalRepository } from './db/repositories/approval.repository';
import { IdempotencyRepository } from './db/repositories/idempotency.repository';
import { PaymentRepository } from './db/repositories/payment.repository';
import { ReversalRepository } from './db/repositories/reversal.repository';
import { PasswordResetRepository } from './db/repositories/password-reset.repository';
import { TransactionRepository } from './db/repositories/transaction.repository';
import { UserRepository } from './db/repositories/user.repository';
import { WalletRepository } from './db/repositories/wallet.repository';
import { WithdrawalRepository } from './db/repositories/withdrawal.repository';
import { JournalRepository } from './db/repositories/journal.repository';
import { MailOutboxRepository } from './db/repositories/mail-outbox.repository';
import { RateLimitRepository } from './db/repositories/rate-limit.repository';
import { auditLedger, type AuditReport } from './ledger/ledger-audit';
import { embeddedSandboxes, withSandboxHost } from './config/embedded-sandboxes';
import type { Treasury } from './ledger/treasury';
import { HistoryWindow } from './ledger/history-window';
import { ledgerFromConfig, treasuryFromConfig, type LedgerModule } from './composition/ledger';
import { standardKinds } from './ledger/kinds/registry';
import type { JournalReconciler } from './ledger/journal-reconciler';
import { paymentsFromConfig } from './composition/payments';
import type { WebhookInboxRepository } from './db/repositories/webhook-inbox.repository';
import type { PaymentSweepService } from './services/payment-sweep.service';
import type { PaymentService } from './services/payment.service';
import type { ReversalService } from './services/reversal.service';
import type { WebhookInboxService } from './services/webhook-inbox.service';
import { readinessProbe } from './composition/readiness';
import type { Logger } from './logger';
import { ServiceMetrics } from './metrics/metrics';
import { countPaymentsByStatus, readPaymentAlerts } from './metrics/payment-counts';
import { authenticate, PrincipalCache } from './middleware/auth';
import { createRateLimits } from './middleware/rate-limit';
import { adminRoutes } from './routes/admin.routes';
import { adminMfaRoutes } from './routes/admin-mfa.routes';
import { adminApprovalRoutes } from './routes/approval.routes';
import { ledgerRoutes } from './routes/ledger.routes';
import type { RouteDef } from './routes/route-table';
import { paymentsRoutes, paymentsWebhookRouter } from './routes/payments.routes';
import { usersRoutes } from './routes/users.routes';
import { adminWithdrawalRoutes, withdrawalRoutes } from './routes/withdrawal.routes';
import type { WithdrawalService } from './services/withdrawal.service';
import { createPasswordHasher, type PasswordHasher } from './security/password-hasher';
import { TokenService } from './security/tokens';
import { WalletCipher } from './security/wallet-cipher';
import { AdminService } from './services/admin.service';
import { AdminMfaService } from './services/admin-mfa.service';
import { ApprovalService } from './services/approval.service';
import { LedgerService } from './services/ledger.service';
import { MailOutboxService } from './services/mail-outbox.service';
import { WalletActivationService } from './services/wallet-activation.service';
import { PasswordResetService } from './services/password-reset.service';
import { UserService } from './services/user.service';
import { WalletService } from './services/wallet.service';
import { errorReason } from './errors/loggable-error';
import { EventRepository } from './db/repositories/event.repository';
import { DeliveryQueue } from './events/delivery-queue';
import { EventOutbox } from './events/event-outbox';
import { WebhookDelivery } from './events/webhook-delivery';
import { WebhookRepository } from './db/repositories/webhook.repository';
import { WebhookSecrets } from './security/webhook-secrets';
import { WebhookSender } from './clients/webhook-sender';
import { WebhookEndpointService } from './services/webhook-endpoint.service';
import { webhookEndpointRoutes } from './routes/webhook-endpoints.routes';
import { EventListener } from './events/event-listener';
import { EventFeedService } from './services/event-feed.service';
import { eventRoutes } from './routes/events.routes';

export interface Container {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  hasher: PasswordHasher;
  tokens: TokenService;
  mailer: Mailer;
  users: UserService;
  admins: AdminService;
  /** Admin MFA: enrolment and the second factor of admin logins. */
  adminMfa: AdminMfaService;
  wallets: WalletService;
  ledger: LedgerService;
  /** The ledger module's parts (tests and operator commands reach below the use cases through it). */
  ledgerModule: LedgerModule;
  activation: WalletActivationService;
  payments: PaymentService;
  reconciler: JournalReconciler;
  webhookInbox: WebhookInboxService;
  paymentSweep: PaymentSweepService;
  reversals: ReversalService;
  reversalRepo: ReversalRepository;
  /** Cash-out: withdrawals, their sweep and their transfers' events (CONTRACT 10). */
  withdrawals: WithdrawalService;
  /** The provider's events as stored (operators' list of those set aside). */
  webhookEvents: WebhookInboxRepository;
  mailOutbox: MailOutboxService;
  metrics: ServiceMetrics;
  /** What the distribution account can still pay for (metrics, /readyz). */
  treasury: Treasury;
  /** The route tables by base path: the app, the auth matrix test and the OpenAPI document read them. */
  routeGroups: Record<string, RouteDef[]>;
  app: Express;
  /** Compares the database with the ledger (npm run ledger:audit). */
  audit(): Promise<AuditReport>;
  /** Starts the background work: ledger bootstrap, wallet activation sweep, journal reconciler, webhook inbox, mail outbox. */
  start(): void;
  /** Where every change writes its events (CONTRACT 13). */
  outbox: EventOutbox;
  /** This process takes webhook deliveries from the job queue (start() does it; tests call it alone). */
  deliverWebhooks(): Promise<void>;
  /** Ends the open event streams (their readers reconnect elsewhere): a stopping server waits for no stream. */
  endStreams(): void;
  close(): Promise<void>;
}

/** How long shutdown waits for ledger submissions in flight before leaving them to the journal. */
const DRAIN_GRACE_MS = 10_000;

export interface ContainerOptions {
  /** An already open database (tests share one per worker); otherwise opened from config. */
  database?: DatabaseHandle;
  /** How long signup waits for wallet activation before answering with the wallet pending. */
  signupWaitMs?: number;
  /** How long verify waits for the mint before answering (the reconciler finishes it anyway). */
  mintWaitMs?: number;
  /** The clock admin one-time codes are checked against (tests choose the time step); Date.now otherwise. */
  totpClock?: () => number;
}

/** Wires every dependency from the configuration: the one place that knows the whole graph. */
export async function buildContainer(configured: Config, logger: Logger, options: ContainerOptions = {}): Promise<Container> {
  // First: a sandbox this build cannot load stops the start before the database is touched.
  const sandboxes = await embeddedSandboxes(configured, logger);
  const config = withSandboxHost(configured, sandboxes.host);
  const database =
    options.database ??
    (await openDatabase({
      url: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: config.databasePoolSize,
      onEvent: (message) => logger.info(message),
    }));
  const { db } = database;

  const hasher = createPasswordHasher({ cost: config.bcryptCost, threads: config.passwordHashThreads });
  const tokens = new TokenService(config.jwtSecret);
  const cipher = new WalletCipher(config.walletKeys.current, config.walletKeys.previous);
  const mailer = new Mailer({ smtpUrl: config.mail.smtpUrl, from: config.mail.from, outboxDir: config.mail.outboxDir, logger });

  const metrics = new ServiceMetrics();
  const eventRepo = new EventRepository(db);
  const deliveryQueue = new DeliveryQueue(
    { url: database.url, heartbeatSeconds: config.webhooks.jobHeartbeatSeconds, concurrency: config.webhooks.concurrency, monitorSeconds: config.webhooks.queueMonitorSeconds },
    logger,
  );
  const webhookRepo = new WebhookRepository(db);
  const webhookSecrets = new WebhookSecrets(cipher);
  const addressPolicy = { allowLoopback: config.webhooks.allowLoopback };
  const webhookDelivery = new WebhookDelivery({
    db, webhooks: webhookRepo, queue: deliveryQueue, secrets: webhookSecrets, retryScheduleMs: config.webhooks.retryScheduleMs, logger,
    sender: new WebhookSender({ ...addressPolicy, timeoutMs: config.webhooks.timeoutMs }),
  });
  const webhookEndpoints = new WebhookEndpointService({ db, webhooks: webhookRepo, queue: deliveryQueue, secrets: webhookSecrets, policy: addressPolicy });
  const outbox = new EventOutbox({ db, events: eventRepo, queue: deliveryQueue, enabled: config.events.enabled });
  const eventListener = new EventListener(database.url, logger);
  // 25 s: under the 30 s idle timeout of common proxies.
  const eventFeed = new EventFeedService({ events: eventRepo, listener: eventListener, keepAliveMs: 25_000 }, logger);
  const userRepo = new UserRepository(db);
  const walletRepo = new WalletRepository(db);
  const kinds = standardKinds();
  const transactionRepo = new TransactionRepository(db, kinds.recordKinds);
  const paymentRepo = new PaymentRepository(db, outbox);
  const journalRepo = new JournalRepository(db);
  const idempotency = new IdempotencyRepository(db);
  const timing = config.ledger;
  const ledgerModule = ledgerFromConfig(config, { database, journal: journalRepo, idempotency, wallets: walletRepo, cipher, logger, kinds, events: outbox });
  // The metrics listen to what sending reports; nothing in the ledger module calls them.
  const sendEvents = ledgerModule.accounts.sender.events;
  sendEvents.on('result', (code) => metrics.countLedgerResult(code));
  sendEvents.on('feePaid', (stroops) => metrics.countFeePaid(stroops));
  sendEvents.on('bump', () => metrics.countFeeBump());

  const { bootstrap: journal, reads: tokenReads, reconciler } = ledgerModule;
  const wallets = new WalletService(walletRepo, cipher);
  const activation = new WalletActivationService(
    journal,
    walletRepo,
    { startingXlm: config.ledger.walletStartingXlm, signupWaitMs: options.signupWaitMs ?? 5000 },
    logger,
  );
  const rateLimitRepo = new RateLimitRepository(db);
  const users = new UserService({
    db, users: userRepo, wallets, activator: activation, hasher, tokens,
    budget: { counters: rateLimitRepo, walletsPerHour: config.ledger.signupWalletsPerHour, onOutcome: (outcome) => metrics.countSignupWallet(outcome) },
  });
  const reversalRepo = new ReversalRepository(db);
  const approvalRepo = new ApprovalRepository(db);
  const adminLog = new AdminLogRepository(db);
  const ledger = new LedgerService({
    ledger: tokenReads, journal, wallets: walletRepo, transactions: transactionRepo, reversals: reversalRepo, tokenCode: config.ledger.tokenCode,
    approvals: approvalRepo, approvalThresholdStroops: config.mintApprovalThresholdStroops, db,
  });
  const approvals = new ApprovalService({ db, approvals: approvalRepo, ledger });
  const { paystack, payments, paymentSweep, reversals, webhookEvents, webhookInbox, payoutAccounts, withdrawals } = paymentsFromConfig(
    config,
    { db, events: outbox, payments: paymentRepo, users: userRepo, wallets: walletRepo, reversals: reversalRepo, journal, reads: tokenReads, logger },
    { mintWaitMs: options.mintWaitMs ?? 10_000 },
  );
  // Deletions and credential changes made here are seen at once (forget); made by another
  // process, within this TTL.
  const principals = new PrincipalCache(2000);
  const resetRepo = new PasswordResetRepository(db);
  const mailOutboxRepo = new MailOutboxRepository(db);
  const mailOutbox = new MailOutboxService({
    outbox: mailOutboxRepo, resets: resetRepo, tokens, mailer, logger,
    // The lease outlasts the mailer's SMTP timeouts (10 s connect, 10 s greeting, 20 s idle).
    options: { publicBaseUrl: config.publicBaseUrl, leaseMs: 2 * 60 * 1000, retryBaseMs: config.mailRetryBaseMs, maxDelayMs: 10 * 60 * 1000, maxAttempts: 12 },
  });
  const resets = new PasswordResetService({
    db, users: userRepo, resets: resetRepo, hasher, tokens, outbox: mailOutboxRepo,
    // In the background: the answer never waits for the mail server.
    onMailQueued: () => setImmediate(() => void mailOutbox.run()),
    onPasswordChanged: (id) => principals.forget({ id, role: 'user' }),
  });
  const adminRepo = new AdminRepository(db);
  const adminMfa = new AdminMfaService({
    db, admins: adminRepo, mfa: new AdminMfaRepository(db), recoveryCodes: new RecoveryCodeRepository(db), hasher, cipher, log: adminLog,
    // What authenticator apps show beside the admin's e-mail: the deployment's host tells staging from production.
    issuer: `Wallet (${new URL(config.publicBaseUrl).hostname})`,
    now: options.totpClock,
  });
  const admins = new AdminService({
    db, admins: adminRepo, users: userRepo, wallets: walletRepo, walletService: wallets, transactions: transactionRepo, hasher, tokens, log: adminLog,
    mfa: adminMfa, mfaRequired: config.adminMfaRequired,
    onSessionsEnded: (p) => principals.forget(p),
  });

  const requireRole = authenticate(
    tokens,
    principals.wrap((p) => (p.role === 'admin' ? admins.firstAcceptedIat(p.id) : users.firstAcceptedIat(p.id))),
  );
  const rateLimits = createRateLimits(rateLimitRepo, { auth: config.authRateLimit, callback: config.callbackRateLimit, webhook: config.webhookRateLimit });
  const common = { rateLimits, requireHttpsForSecrets: config.requireHttpsForSecrets };

  let purgeTimer: NodeJS.Timeout | undefined;
  const routeGroups: Record<string, RouteDef[]> = {
    '/api/users': [...usersRoutes({ users, resets, ...common }), ...eventRoutes({ feed: eventFeed })],
    '/api/admin': [
      ...adminRoutes({ admins, payments, ...common }),
      ...adminMfaRoutes({ mfa: adminMfa, ...common }),
      ...adminWithdrawalRoutes({ withdrawals }),
      ...adminApprovalRoutes({ approvals, tokenCode: config.ledger.tokenCode }),
      ...webhookEndpointRoutes({ endpoints: webhookEndpoints }),
    ],
    '/api/ledger': ledgerRoutes({ ledger, tokenCode: config.ledger.tokenCode }),
    '/api/payments': [...paymentsRoutes({ payments, rateLimits, ledger, tokenCode: config.ledger.tokenCode }), ...withdrawalRoutes({ accounts: payoutAccounts, withdrawals })],
  };
  const treasury = treasuryFromConfig(config, ledgerModule);
  const history = new HistoryWindow(ledgerModule.client, journalRepo, 5000);
  metrics.setSources({
    paymentsByStatus: () => countPaymentsByStatus(db),
    paymentAlerts: () => readPaymentAlerts(db),
    distributionQueueDepth: () => ledgerModule.accounts.distributionQueueDepth(),
    treasury: () => treasury.read(),
    historyWindow: () => history.read(),
    webhookDeliveries: () => webhookRepo.backlog(),
    eventStreams: () => eventListener.open,
    followLag: async () => {
      if (timing.followIntervalMs === 0) return undefined;
      // The tip now, not the one the last page saw: between passes the ledger moves on.
      const [position, tip] = await Promise.all([ledgerModule.movements.position(), ledgerModule.client.latestLedger().catch(() => undefined)]);
      return position && tip ? Math.max(0, tip.sequence - position.ledger) : undefined;
    },
    followGaps: () => ledgerModule.movements.countOpenGaps(),
    withdrawalsWaiting: () => withdrawals.oldestWaiting(),
  });
  const app = createApp({
    logger,
    metrics,
    guards: { requireRole },
    routeGroups,
    outsideApps: sandboxes.apps,
    rawMounts: {
      '/api/payments/webhook': paymentsWebhookRouter({ inbox: webhookInbox, secretKey: config.payments.provider.secretKey, rateLimits }),
    },
    corsOrigins: config.corsOrigins,
    publicBaseUrl: config.publicBaseUrl,
    trustProxy: config.trustProxy,
    ready: readinessProbe(db, ledgerModule.client, treasury, history),
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
    adminMfa,
    wallets,
    ledger,
    ledgerModule,
    activation,
    payments,
    reconciler,
    webhookInbox,
    paymentSweep,
    reversals,
    reversalRepo,
    withdrawals,
    webhookEvents,
    mailOutbox,
    metrics,
    treasury,
    async audit() {
      const ready = await journal.ready();
      return auditLedger({
        client: ledgerModule.client,
        journal: journalRepo,
        wallets: walletRepo,
        payments: paymentRepo,
        reversals: reversalRepo,
        withdrawals: new WithdrawalRepository(db, outbox),
        movements: ledgerModule.movements,
        provider: paystack,
        asset: ready.asset,
        distribution: ready.keys.distribution.publicKey(),
        kinds,
      });
    },
    routeGroups,
    app,
    start() {
      journal
        .ready()
        .catch((err: unknown) => logger.warn({ reason: errorReason(err) }, 'ledger not ready yet'));
      // pending wallets without a live activation get a new one every 15 s
      activation.start(15_000);
      // Idempotency keys live 24 hours: expired ones are dropped hourly, not only when reused.
      // Rate limit counters of windows a day past go too.
      purgeTimer = setInterval(() => {
        void idempotency.purgeExpired().catch(() => undefined);
        void rateLimitRepo.purgeBefore(new Date(Date.now() - 24 * 60 * 60 * 1000)).catch(() => undefined);
        // Events are kept EVENT_RETENTION_DAYS: a stream's Last-Event-ID and a webhook replay reach back that far.
        void eventRepo.deleteOlderThan(new Date(Date.now() - config.events.retentionDays * 24 * 60 * 60 * 1000)).catch(() => undefined);
      }, 60 * 60 * 1000);
      purgeTimer.unref();
      reconciler.start(timing.reconcileIntervalMs);
      if (timing.followIntervalMs > 0) ledgerModule.follower.start(timing.followIntervalMs);
      webhookInbox.start(timing.reconcileIntervalMs);
      paymentSweep.start(timing.reconcileIntervalMs);
      reversals.start(timing.reconcileIntervalMs);
      withdrawals.start(timing.reconcileIntervalMs);
      mailOutbox.start(timing.reconcileIntervalMs);
      void deliveryQueue.work((deliveryId) => webhookDelivery.deliver(deliveryId)).catch((err: unknown) => logger.warn({ reason: errorReason(err) }, 'webhook deliveries not started'));
    },
    outbox,
    deliverWebhooks() {
      return deliveryQueue.work((deliveryId) => webhookDelivery.deliver(deliveryId));
    },
    endStreams() {
      eventFeed.close();
    },
    async close() {
      clearInterval(purgeTimer);
      await activation.stop();
      await reconciler.stop();
      await ledgerModule.follower.stop();
      await webhookInbox.stop();
      await paymentSweep.stop();
      await reversals.stop();
      await withdrawals.stop();
      await mailOutbox.stop();
      eventFeed.close();
      await eventListener.close();
      await deliveryQueue.stop();
      // Whatever is in flight finishes, or stays in the journal for the next process: the wait is
      // bounded, since nothing is lost by stopping (every envelope is stored before it is sent).
      await Promise.race([ledgerModule.accounts.drain(), new Promise((resolve) => setTimeout(resolve, DRAIN_GRACE_MS).unref())]);
      sandboxes.host?.detach();
      mailer.close();
      await hasher.close();
      if (!options.database) await database.close();
    },
  };
}
