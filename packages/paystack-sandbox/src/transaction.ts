/**
 * The charge as the sandbox remembers it, and the `data` object Paystack shows for it.
 * Amounts are integer kobo everywhere; nothing here ever divides money into floats.
 */

/**
 * Verify's `status` values (Paystack's "Verify Payments" guide). `abandoned` is "opened but not
 * completed"; it and the other not-yet statuses leave the charge payable. `success` and `failed`
 * end the payment; `reversed` is a paid charge whose money went back to the buyer in full
 * ("refunded, or a chargeback was successfully logged", in Paystack's words).
 */
export const NOT_YET_STATUSES = ['abandoned', 'ongoing', 'pending', 'processing', 'queued'] as const;
export type NotYetStatus = (typeof NOT_YET_STATUSES)[number];
export const TRANSACTION_STATUSES = [...NOT_YET_STATUSES, 'success', 'failed', 'reversed'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** A charge the buyer can still pay: the checkout page keeps its buttons, the controls may move it. */
export function isOpen(status: TransactionStatus): status is NotYetStatus {
  return (NOT_YET_STATUSES as readonly string[]).includes(status);
}

/** A card was charged: the charge has an authorization and fees, and its money can be refunded or disputed. */
export function wasCharged(status: TransactionStatus): boolean {
  return status === 'success' || status === 'reversed';
}

export interface SandboxCustomer {
  id: number;
  email: string;
  customerCode: string;
}

export interface SandboxTransaction {
  id: number;
  reference: string;
  accessCode: string;
  amountKobo: number;
  currency: 'NGN';
  email: string;
  callbackUrl: string | null;
  metadata: unknown;
  status: TransactionStatus;
  createdAt: string;
  paidAt: string | null;
  customerId: number;
}

const GATEWAY_RESPONSES: Record<TransactionStatus, string> = {
  abandoned: 'The transaction was not completed',
  ongoing: 'Awaiting the customer',
  pending: 'Transaction in progress',
  processing: 'Transaction in progress',
  queued: 'Transaction queued',
  success: 'Successful',
  failed: 'Declined',
  reversed: 'Successful',
};

// Paystack's local-card pricing: 1.5%, plus ₦100 from ₦2,500 up, capped at ₦2,000.
// BigInt keeps the percentage exact for any safe-integer amount.
const FEE_FLAT_WAIVED_BELOW_KOBO = 250_000n;
const FEE_FLAT_KOBO = 10_000n;
const FEE_CAP_KOBO = 200_000n;

export function paystackFeeKobo(amountKobo: number): number {
  const amount = BigInt(amountKobo);
  const percentage = (amount * 15n + 999n) / 1000n; // ceil(1.5%)
  const flat = amount >= FEE_FLAT_WAIVED_BELOW_KOBO ? FEE_FLAT_KOBO : 0n;
  const fee = percentage + flat;
  return Number(fee > FEE_CAP_KOBO ? FEE_CAP_KOBO : fee);
}

/** Paystack only returns a card authorization once a card has actually been charged. */
function authorizationFor(tx: SandboxTransaction): Record<string, unknown> {
  if (!wasCharged(tx.status)) return {};
  return {
    authorization_code: `AUTH_${tx.accessCode}`,
    bin: '408408',
    last4: '4081',
    exp_month: '12',
    exp_year: '2030',
    channel: 'card',
    card_type: 'visa',
    bank: 'TEST BANK',
    country_code: 'NG',
    brand: 'visa',
    reusable: true,
    signature: `SIG_${tx.accessCode}`,
    account_name: null,
  };
}

/**
 * The `data` object of `GET /transaction/verify/:reference`, also sent as the `data` of the
 * `charge.success` webhook, so both paths of the service see exactly the same shape.
 */
export function toPaystackData(tx: SandboxTransaction, customer: SandboxCustomer) {
  return { ...transactionFields(tx), customer: customerFields(customer), plan: null };
}

/** Paystack's customer object as it appears inside transactions and disputes. */
export function customerFields(customer: SandboxCustomer) {
  return {
    id: customer.id,
    first_name: null,
    last_name: null,
    email: customer.email,
    customer_code: customer.customerCode,
    phone: null,
    metadata: null,
    risk_action: 'default',
  };
}

function transactionFields(tx: SandboxTransaction) {
  return {
    id: tx.id,
    domain: 'test',
    status: tx.status,
    reference: tx.reference,
    receipt_number: null,
    amount: tx.amountKobo,
    requested_amount: tx.amountKobo,
    message: null,
    gateway_response: GATEWAY_RESPONSES[tx.status],
    paid_at: tx.paidAt,
    created_at: tx.createdAt,
    transaction_date: tx.createdAt,
    channel: 'card',
    currency: tx.currency,
    ip_address: null,
    metadata: tx.metadata,
    log: null,
    fees: wasCharged(tx.status) ? paystackFeeKobo(tx.amountKobo) : null,
    fees_split: null,
    authorization: authorizationFor(tx),
  };
}

export type PaystackTransactionData = ReturnType<typeof toPaystackData>;
