/**
 * The charge as the sandbox remembers it, and the `data` object Paystack shows for it.
 * Amounts are integer kobo everywhere; nothing here ever divides money into floats.
 */

/** `abandoned` is Paystack's word for "opened but not completed"; it is not final. */
export type TransactionStatus = 'abandoned' | 'success' | 'failed';

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
  success: 'Successful',
  failed: 'Declined',
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
  if (tx.status !== 'success') return {};
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
    fees: tx.status === 'success' ? paystackFeeKobo(tx.amountKobo) : null,
    fees_split: null,
    authorization: authorizationFor(tx),
    customer: {
      id: customer.id,
      first_name: null,
      last_name: null,
      email: customer.email,
      customer_code: customer.customerCode,
      phone: null,
      metadata: null,
      risk_action: 'default',
    },
    plan: null,
  };
}

export type PaystackTransactionData = ReturnType<typeof toPaystackData>;
