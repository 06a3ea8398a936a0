import { Networks } from '@stellar/stellar-sdk';
import { PaystackClient } from '../clients/paystack.client';
import type { Config } from '../config/env';
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

/** What the payment use cases are built from: the stores, the journal's writes and reads of the network. */
export interface PaymentParts {
  db: Database;
  payments: PaymentRepository;
  users: UserRepository;
  wallets: WalletRepository;
  reversals: ReversalRepository;
  journal: JournalWrites;
  reads: TokenReads;
  logger: Logger;
}

/** Naira in, tokens out, and money going back: the provider's client, the payment use cases and their background work. */
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
  const webhookEvents = new WebhookInboxRepository(parts.db);
  const webhookInbox = new WebhookInboxService(
    webhookEvents,
    payments,
    reversals,
    { leaseMs: config.ledger.leaseMs, retryBaseMs: config.webhookRetryBaseMs, maxDelayMs: 10 * 60 * 1000, maxAttempts: 50 },
    parts.logger,
  );
  return { paystack, payments, paymentSweep, reversals, webhookEvents, webhookInbox };
}
