import { z } from 'zod';

/**
 * What client apps hear (CONTRACT.md section 13): one event per change of money a user cares about,
 * written in the transaction that makes the change (src/db/repositories/event.repository.ts).
 */
export const EVENT_TYPES = [
  'wallet.credited',
  'wallet.debited',
  'payment.minted',
  'payment.failed',
  'payment.reversed',
  'withdrawal.debited',
  'withdrawal.paid',
  'withdrawal.failed',
  'withdrawal.refunded',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const eventTypeSchema = z.enum(EVENT_TYPES);

/** A movement of the user's wallet (section 12): amounts as decimal strings, never a secret. */
export const walletEventDataSchema = z.object({
  transactionId: z.string().describe("The record's id in the user's transaction list"),
  ledgerTransactionId: z.string().describe('The hash of the ledger transaction'),
  from: z.string(),
  to: z.string(),
  amount: z.string().describe('Decimal string, as the ledger counts it (7 places)'),
  assetCode: z.string(),
  origin: z.enum(['service', 'ledger']),
});

export const paymentEventDataSchema = z.object({
  reference: z.string(),
  amountNaira: z.string().describe('Decimal string'),
  tokens: z.string().nullable().describe('Decimal string: the tokens minted (payment.minted), else null'),
  reason: z.string().nullable(),
});

export const withdrawalEventDataSchema = z.object({
  withdrawalId: z.string(),
  reference: z.string(),
  amountNaira: z.string().describe('Decimal string'),
  tokens: z.string().describe('Decimal string'),
  status: z.string().describe("The withdrawal's state after the move"),
  reason: z.string().nullable(),
});

export type WalletEventData = z.infer<typeof walletEventDataSchema>;
export type PaymentEventData = z.infer<typeof paymentEventDataSchema>;
export type WithdrawalEventData = z.infer<typeof withdrawalEventDataSchema>;

/** An event before it is written: the user it belongs to, or the wallet key whose holder it belongs to. */
export type EventDraft = ({ userId: string } | { walletKey: string }) &
  (
    | { type: 'wallet.credited' | 'wallet.debited'; data: WalletEventData }
    | { type: 'payment.minted' | 'payment.failed' | 'payment.reversed'; data: PaymentEventData }
    | { type: 'withdrawal.debited' | 'withdrawal.paid' | 'withdrawal.failed' | 'withdrawal.refunded'; data: WithdrawalEventData }
  );

/** An event as clients receive it, over a webhook (the body) and the stream (`data:`). */
export const eventSchema = z.object({
  id: z.uuid().describe('Global id; the `webhook-id` of its deliveries, the same on every retry'),
  seq: z.number().int().describe("The event's number among its user's events: 1, 2, 3... with no gap"),
  type: eventTypeSchema,
  userId: z.uuid(),
  timestamp: z.string().describe('When the change was committed (ISO 8601)'),
  data: z.union([walletEventDataSchema, paymentEventDataSchema, withdrawalEventDataSchema]),
});
export type ClientEvent = z.infer<typeof eventSchema>;

/** An event as stored, as far as clients see it (src/db/event-schema.ts). */
export interface StoredEvent {
  id: string;
  seq: number;
  type: EventType;
  userId: string;
  createdAt: Date;
  data: unknown;
}

/** An event as clients receive it: the webhook body, the stream's `data:`, the JSON page's items. */
export function clientEventOf(row: StoredEvent): ClientEvent {
  return { id: row.id, seq: row.seq, type: row.type, userId: row.userId, timestamp: row.createdAt.toISOString(), data: row.data as ClientEvent['data'] };
}
