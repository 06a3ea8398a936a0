import { Networks } from '@stellar/stellar-sdk';
import { PaystackClient } from '../clients/paystack.client';
import type { Config } from '../config/env';
import type { EventTransactions } from '../db/repositories/event.repository';
import type { Database } from '../db/client';
import type { PaymentRepository } from '../db/repositories/payment.repository';
import type { ReversalRepository } from '../db/repositories/reversal.repository';
import type { UserRepository } from '../db/repositories/user.repository';
import type { WalletRepository } from '../db/repositories/wallet.repository';
import { WebhookInboxRepository } from '../db/repositories/webhook-inbox.repository';
import type { JournalWrites } from '../ledger/ledger-bootstrap';
import type { TokenReads } from '../ledger/token-reads';
import type { Logger } from '../logger';
import { PaymentSweepService } from '../services/payment-sweep.service';
import { PaymentService } from '../services/payment.service';
import { ReversalService } from '../services/reversal.service';
import { WebhookInboxService } from '../services/webhook-inbox.service';
import { AdminLogRepository } from '../db/repositories/admin-log.repository';
import { PayoutAccountRepository } from '../db/repositories/payout-account.repository';
import { WithdrawalRepository } from '../db/repositories/withdrawal.repository';
import { ExchangeRate } from '../domain/exchange-rate';
import { PayoutAccountService } from '../services/payout-account.service';
import { WithdrawalService } from '../services/withdrawal.service';

/** What the payment use cases are built from: the stores, the journal's writes and reads of the network. */
export interface PaymentParts {
  db: Database;
  /** The outbox: a withdrawal's moves that tell its user commit with their events. */
  events: EventTransactions;
  payments: PaymentRepository;
  users: UserRepository;
  wallets: WalletRepository;
  reversals: ReversalRepository;
  journal: JournalWrites;
  reads: TokenReads;
  logger: Logger;
}

/** Naira in, tokens out, money going back, and cash-out: the provider's client, the payment and withdrawal use cases and their background work. */
export function paymentsFromConfig(config: Config, parts: PaymentParts, options: { mintWaitMs: number }) {
  const paystack = new PaystackClient({ baseUrl: config.payments.provider.baseUrl, secretKey: config.payments.provider.secretKey, timeoutMs: config.payments.paystackTimeoutMs });
  const payments = new PaymentService({
    db: parts.db,
    provider: paystack,
    payments: parts.payments,
    users: parts.users,
    wallets: parts.wallets,
    reversals: parts.reversals,
    journal: parts.journal,
    options: {
      publicBaseUrl: config.publicBaseUrl,
      tokensPerNaira: config.payments.tokensPerNaira,
      tokenCode: config.ledger.tokenCode,
      mintWaitMs: options.mintWaitMs,
      firstCheckMs: config.payments.firstCheckMs,
      publicNetwork: config.ledger.networkPassphrase === Networks.PUBLIC,
    },
    logger: parts.logger,
  });
  const paymentSweep = new PaymentSweepService(
    parts.payments,
    payments,
    {
      policy: { leaseMs: config.ledger.leaseMs, retryBaseMs: config.payments.checkRetryMs, maxDelayMs: 6 * 60 * 60 * 1000, maxAttempts: config.payments.checkMaxAttempts },
      walletWaitMs: config.ledger.reconcileIntervalMs,
    },
    parts.logger,
  );
  const reversals = new ReversalService({
    reversals: parts.reversals,
    payments: parts.payments,
    ledger: parts.reads,
    journal: parts.journal,
    options: {
      policy: { leaseMs: config.ledger.leaseMs, retryBaseMs: config.webhookRetryBaseMs, maxDelayMs: 60 * 60 * 1000, maxAttempts: 50 },
      clawbackWaitMs: options.mintWaitMs,
      tokensFor: (kobo) => payments.tokensFor(kobo),
    },
    logger: parts.logger,
  });
  const payoutAccountRepo = new PayoutAccountRepository(parts.db);
  const payoutAccounts = new PayoutAccountService(paystack, payoutAccountRepo);
  const withdrawals = new WithdrawalService({
    events: parts.events,
    log: new AdminLogRepository(parts.db),
    withdrawals: new WithdrawalRepository(parts.db, parts.events),
    accounts: payoutAccountRepo,
    wallets: parts.wallets,
    reversals: parts.reversals,
    reads: parts.reads,
    journal: parts.journal,
    provider: paystack,
    options: {
      rate: new ExchangeRate(config.payments.tokensPerNaira),
      minKobo: config.withdrawals.minKobo,
      dailyLimitKobo: config.withdrawals.dailyLimitKobo,
      debitWaitMs: options.mintWaitMs,
      // The request writes its debit within the ledger's answer wait; the sweep takes over well after.
      takeOverMs: config.ledger.leaseMs,
      policy: { leaseMs: config.ledger.leaseMs, retryBaseMs: config.withdrawals.checkRetryMs, maxDelayMs: 10 * 60 * 1000, maxAttempts: 200 },
      tokenCode: config.ledger.tokenCode,
    },
    logger: parts.logger,
  });
  const webhookEvents = new WebhookInboxRepository(parts.db);
  const webhookInbox = new WebhookInboxService(
    webhookEvents,
    payments,
    reversals,
    withdrawals,
    { leaseMs: config.ledger.leaseMs, retryBaseMs: config.webhookRetryBaseMs, maxDelayMs: 10 * 60 * 1000, maxAttempts: 50 },
    parts.logger,
  );
  return { paystack, payments, paymentSweep, reversals, webhookEvents, webhookInbox, payoutAccounts, withdrawals };
}
