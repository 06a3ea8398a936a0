import crypto from 'node:crypto';
import { z } from 'zod';
import { paymentReferenceSchema } from './schemas';

/** A signed provider event as the inbox keeps it. */
export interface ProviderEvent {
  event: string;
  /** One per provider event: a redelivery has the same key, a second refund of one payment does not. */
  eventKey: string;
  /** The payment, or the withdrawal's transfer, the event is about. */
  reference: string;
  data: Record<string, unknown>;
}

const id = z.union([z.string().min(1).max(100), z.number().int()]);
const reference = paymentReferenceSchema;

/**
 * Where each kind of Paystack event names the payment: charges (and transfers, by their reference) in `data.reference`, refunds in
 * `data.transaction_reference` (or the nested `data.transaction.reference`), disputes in
 * `data.transaction.reference`.
 */
const eventShape = z.object({
  event: z.string().min(1).max(100),
  data: z.looseObject({
    id: id.optional(),
    reference: reference.nullish(),
    // null in Paystack's dispute events, which name the charge in data.transaction.reference
    transaction_reference: reference.nullish(),
    transaction: z.looseObject({ reference: reference.optional() }).nullish(),
  }),
});

/**
 * Reads a correctly signed event body. Undefined when it names no reference at all (an event about
 * something else on the provider account: a subscription), which is acknowledged and not kept.
 */
export function readProviderEvent(raw: Buffer): ProviderEvent | undefined {
  const parsed = eventShape.safeParse(safeJson(raw));
  if (!parsed.success) return undefined;
  const { event, data } = parsed.data;
  const ref = data.reference ?? data.transaction_reference ?? data.transaction?.reference ?? undefined;
  if (!ref) return undefined;
  // Paystack's events carry no delivery id; the id of the object an event is about (charge, refund,
  // dispute) together with the event's name identifies it. Without one, the exact bytes do.
  const eventKey = data.id !== undefined ? `${event}:${data.id}` : `${event}:sha256:${crypto.createHash('sha256').update(raw).digest('hex')}`;
  return { event, eventKey, reference: ref, data };
}

function safeJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}
