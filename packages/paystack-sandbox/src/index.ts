import { Router } from 'express';
import { createApiRouter } from './api.routes';
import { ChargeService } from './charge.service';
import { createCheckoutRouter } from './checkout.routes';
import { DisputeService } from './dispute.service';
import { RefundService } from './refund.service';
import { createSandboxControlsRouter } from './sandbox-controls.routes';
import { TransactionStore } from './transaction-store';
import { createTransferApiRouter } from './transfer-api.routes';
import { TransferService } from './transfer.service';
import { WebhookSender } from './webhook-sender';

export { signPaystackPayload } from './signature';
export { sandboxControlPaths } from './control-paths';
export type { ControlledStatus } from './charge.service';
export { DISPUTE_RESOLUTIONS, type DisputeResolution, type DisputeStatus, type PaystackDisputeData } from './dispute';
export type { PaystackRefundData, RefundEventData, RefundStatus } from './refund';
export { NOT_YET_STATUSES, TRANSACTION_STATUSES, type NotYetStatus, type PaystackTransactionData, type TransactionStatus } from './transaction';
export type { WebhookEvent, WebhookEventName } from './webhook-sender';
export { SANDBOX_BANKS, accountNameFor } from './banks';
export { CONTROLLED_TRANSFER_STATUSES, TRANSFER_FAULTS, type ControlledTransferStatus, type TransferFault } from './control.schemas';
export { SANDBOX_OTP } from './transfer.service';
export {
  FINAL_TRANSFER_STATUSES,
  PENDING_TRANSFER_STATUSES,
  TRANSFER_OUTCOMES,
  TRANSFER_STATUSES,
  type PaystackRecipientData,
  type PaystackTransferData,
  type TransferOutcome,
  type TransferStatus,
} from './transfer';

export interface PaystackSandboxOptions {
  /** The Bearer secret the sandbox accepts; also the HMAC key for webhook signatures. */
  secretKey: string;
  /** Where to POST signed events (`charge.success`, `refund.processed`, `charge.dispute.*`, `transfer.*`); unset means no webhooks. */
  webhookUrl?: string;
  /** Directory to persist transactions in (JSON, atomic write); unset means memory only. */
  dataDir?: string;
  /**
   * Where buyers' browsers reach this router (e.g. https://wallet.example/sandbox/paystack): the
   * base of every authorization_url. Unset: the address each API request came to.
   */
  publicUrl?: string;
}

export interface PaystackSandbox {
  /** Mountable under any prefix, e.g. `app.use('/sandbox/paystack', sandbox.router)`. */
  router: Router;
  /** Tests and the server set it once they know their port. */
  setWebhookUrl(url: string | undefined): void;
  /** Flushes state to disk and waits (bounded) for webhook deliveries under way. */
  close(): Promise<void>;
}

/**
 * A stand-in for Paystack that speaks its HTTP contract: the transaction, refund and transfer API
 * behind the Bearer secret, a checkout page with Pay / Decline / Cancel, signed webhooks, and
 * sandbox-only controls (`sandboxControlPaths`) for what Paystack does on its own: not-yet
 * statuses, lost webhooks, chargebacks, payouts that fail or come back, lost answers.
 * Loads earlier transactions from `dataDir` first, so it fails here, not on the first request,
 * if the saved state is unreadable.
 */
export async function createPaystackSandbox(options: PaystackSandboxOptions): Promise<PaystackSandbox> {
  if (options.secretKey.trim() === '') throw new Error('Paystack sandbox needs a non-empty secretKey');

  const store = await TransactionStore.open(options.dataDir);
  const webhooks = new WebhookSender({ secretKey: options.secretKey, url: options.webhookUrl });
  const charges = new ChargeService(store, webhooks);
  const refunds = new RefundService(store, webhooks);
  const disputes = new DisputeService(store, webhooks);
  const transfers = new TransferService(store, webhooks);

  const router = Router();
  router.use(createApiRouter(charges, refunds, options.secretKey, options.publicUrl?.replace(/\/+$/, '')));
  router.use(createTransferApiRouter(transfers, options.secretKey));
  router.use(createSandboxControlsRouter(charges, disputes, transfers, options.secretKey));
  router.use(createCheckoutRouter(charges));

  return {
    router,
    setWebhookUrl: (url) => webhooks.setUrl(url),
    close: async () => {
      await webhooks.close();
      await store.flush();
    },
  };
}
