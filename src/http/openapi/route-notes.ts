import { z } from 'zod';
import { EXAMPLE, exampleAdminTransaction, examplePayoutAccount, exampleProfile, exampleReceivedMovement, exampleTransaction, exampleWithdrawal } from './examples';

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 429 | 502 | 503;

/**
 * What the OpenAPI document says about a route beyond its route-table row: examples and the
 * failures specific to it. The generic ones (validation 400 for a route with schemas, 413 for a
 * body, 401 without a valid token, 403 for the wrong role, 429 for a rate limit) are derived from
 * the row itself.
 */
export interface RouteNotes {
  /** Example request body. */
  request?: unknown;
  /** Example success body (JSON value, or the text of a text/plain or text/html answer). */
  response?: unknown;
  /** Several named success examples, for a route whose success answer has distinct forms. */
  responses?: Record<string, { summary: string; value: unknown }>;
  /** Route-specific failures: status -> example messages, in the group's error shape. */
  errors?: Partial<Record<ErrorStatus, string[]>>;
  /** Honours the Idempotency-Key header (CONTRACT 5): optional (`true`), or `required` (withdrawals). */
  idempotent?: boolean | 'required';
  /** Example 202 body of a ledger write whose outcome is not known yet (CONTRACT 8). */
  accepted?: unknown;
  /** Example 202 body of a request above MINT_APPROVAL_THRESHOLD, waiting for a second admin (CONTRACT 11). */
  approval?: unknown;
  /** The route's plain-text answers besides its JSON ones, by status (approving an issue answers as create-asset does). */
  textAnswers?: Partial<Record<200 | 202, string>>;
  /** More than the summary says. */
  description?: string;
  /** Query parameters the handler parses itself (so the table declares no query schema). */
  query?: z.ZodObject;
  /** Example of the route's plain-text 400 (the route declares which failures: RouteDef.errors.plainText). */
  plainText400?: string;
}

const UNAVAILABLE = {
  ledger: 'Ledger unavailable, try again later',
  provider: 'Payment provider unavailable, try again later',
  database: 'Service temporarily unavailable, try again later',
};

/** A webhook endpoint as the admin routes answer it. */
const exampleEndpoint = {
  endpointId: 'c2b1e6a4-8f0d-4d7e-9b1a-2f3e4d5c6b7a',
  url: 'https://ops.example.com/wallet-hooks',
  eventTypes: ['payment.minted', 'withdrawal.paid'],
  createdAt: '2026-12-07T10:00:00.000Z',
  failingSince: null,
};

/** Keyed by `METHOD /full/path` as Express spells the path (`:param`). The test checks every key is a real route. */
export const ROUTE_NOTES: Record<string, RouteNotes> = {
  'POST /api/users/signup': {
    request: { username: EXAMPLE.username, email: EXAMPLE.email, password: 'correct-horse-battery', firstName: 'Ada', lastName: 'Lovelace' },
    response: { message: 'User registered successfully', userId: EXAMPLE.userId },
    description:
      'The ledger wallet is created with the account; its activation on the ledger may finish shortly after the answer. The service sponsors the reserves of each new wallet (it holds WALLET_STARTING_XLM, 0 by default, and its fees are paid by the service); at most SIGNUP_WALLETS_PER_HOUR are created per clock hour (503 past that).',
    errors: { 400: ['Email or username already exists'], 503: ['Sign-ups are paused: the hourly budget of new wallets is spent, try again later'] },
  },
  'POST /api/users/login': {
    request: { identifier: EXAMPLE.username, password: 'correct-horse-battery' },
    response: { message: 'Login successful', token: EXAMPLE.jwt, profile: exampleProfile },
    description: 'The token is valid for 1 hour. `identifier` is the username or the e-mail address.',
    errors: { 401: ['Invalid credentials'] },
  },
  'GET /api/users/profile': {
    response: { ...exampleProfile, ledgerSecretKey: EXAMPLE.secretKey },
    description: 'Carries the wallet secret key: answered only over HTTPS in production (403 otherwise), never cached.',
    // The account deleted between the token check and the read.
    errors: { 404: ['User not found'] },
  },
  'GET /api/users/events': {
    response: {
      events: [
        {
          id: '0b7f7f4e-5a43-4c51-9d8e-0f1f3f3c2a10',
          seq: 7,
          type: 'wallet.credited',
          userId: EXAMPLE.userId,
          timestamp: '2026-12-07T10:15:00.000Z',
          data: {
            transactionId: '6f1c2a8e-2b1d-4e57-9a36-3c9f5d7a0b21',
            ledgerTransactionId: 'b3f1c0a9d2e84f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a',
            from: EXAMPLE.publicKey,
            to: EXAMPLE.publicKey,
            amount: '12.5000000',
            assetCode: 'WLT',
            origin: 'service',
          },
        },
      ],
    },
    description:
      "With `Accept: text/event-stream` it answers a stream: each event as `id: <seq>`, `event: <type>`, `data: <the event's JSON>`, the events after `Last-Event-ID` (or `after`) first, then each new one as it commits, and a comment line every 25 s. " +
      "A browser's `EventSource` cannot send the bearer header: read the stream with `fetch` and a body reader (README). `seq` numbers the user's events 1, 2, 3... without a gap; events are kept EVENT_RETENTION_DAYS (30).",
  },
  'POST /api/users/send-reset-password-email': {
    request: { email: EXAMPLE.email },
    response: { message: 'If an account exists for that email, a password reset link has been sent' },
    description:
      'Answers the same, in about the same time, whether or not the address is known and whether or not mail is working: the e-mail is queued and sent by a worker with retries. The link expires 1 hour after it is sent.',
    errors: { 503: [UNAVAILABLE.database] },
  },
  'POST /api/users/reset-password': {
    request: { token: EXAMPLE.jwt, newPassword: 'a-new-strong-password' },
    response: { message: 'Password has been reset successfully' },
    description: 'A reset token works once; any later password change invalidates it too.',
    errors: { 401: ['Reset token expired'], 403: ['Reset token invalid'] },
  },

  'POST /api/admin/login': {
    request: { email: 'root@example.com', password: 'admin-password-1', otp: '492039' },
    response: { message: 'Login successful', token: EXAMPLE.jwt },
    description:
      'The token is valid for 2 hours. Once the admin\'s MFA is on (`POST /api/admin/mfa/confirm`), `otp` is required: the 6-digit code of the authenticator app ' +
      '(one step of 30 s either side of now is accepted, and each code works once: the same code again is 401) or one of the recovery codes (each works once). ' +
      'Without MFA `otp` is not looked at. With `ADMIN_MFA_REQUIRED` (default in production), an admin without MFA gets a token that only the two MFA setup routes take (every other route answers it 403): ' +
      'set MFA up, then log in again with a code.',
    errors: { 401: ['Invalid credentials', 'One-time code required', 'Invalid one-time code'], 404: ['Admin not found'] },
  },
  'POST /api/admin/mfa/setup': {
    request: { password: 'admin-password-1' },
    response: {
      message: 'Scan the QR code with an authenticator app, then confirm with its code',
      otpauthUri: 'otpauth://totp/Wallet%20(wallet.example.com):root%40example.com?issuer=Wallet%20(wallet.example.com)&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30',
      qrSvg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 61 61" shape-rendering="crispEdges"><path fill="#ffffff" d="M0 0h61v61H0z"/><path stroke="#000000" d="M4 4.5h7m1 0h1..."/></svg>',
    },
    description:
      'Starts MFA enrolment (TOTP, RFC 6238: SHA-1, 6 digits, 30 s) with a new secret, answered only here, in the `otpauth://` URI and its QR code (SVG); ' +
      'stored encrypted like wallet keys. The admin\'s password is asked again, so a session alone cannot enrol an authenticator. Pending until confirmed: ' +
      'a second setup before that replaces the secret; once MFA is on, 409. Takes the setup-only token of `ADMIN_MFA_REQUIRED`. Answered only over HTTPS in production, never cached; ' +
      'rate limited like the logins.',
    errors: { 403: ['Invalid password'], 409: ['MFA is already on for this account'] },
  },
  'POST /api/admin/mfa/confirm': {
    request: { otp: '492039' },
    response: {
      message: 'MFA is on: keep the recovery codes safe, each works once and they are not shown again',
      recoveryCodes: ['K7QH-2MXA-PL4D-W3ZB', 'T5RC-QW2N-6HJE-ZK7M', 'MXF3-4VNB-YS2Q-LD6P', 'B2GK-7WRT-N3ZH-QA5C', 'H6PJ-ZE4M-2XKR-VC7N', 'R3DW-5QYL-K7TB-M2GF', 'ZN4C-H2VX-Q6PM-7KJR', 'W7LA-3BTS-MD5Q-XE2Y', 'P5KE-6ZRN-2CHW-VB4T', 'Q2MX-J7DF-L5RA-3NZK'],
    },
    description:
      'Turns MFA on with the current code of the authenticator app (that code is spent: log in with a later one) and answers the ten recovery codes, the only time they are shown ' +
      '(stored as SHA-256 hashes; each logs in once, as `otp`, when the authenticator is lost). Takes the setup-only token of `ADMIN_MFA_REQUIRED`; after confirming, log in again with a code for a full admin token.',
    errors: {
      400: ['Invalid one-time code'],
      409: ['No MFA setup to confirm: POST /api/admin/mfa/setup first', 'MFA is already on for this account', 'The MFA setup changed meanwhile: confirm with a code of the latest setup'],
    },
  },
  'POST /api/admin/provision': {
    request: { email: 'ops@example.com', password: 'another-admin-password' },
    response: { message: 'Admin created successfully', adminId: EXAMPLE.adminId },
    errors: { 409: ['An admin with this email already exists'] },
  },
  'GET /api/admin/users': {
    response: [{ userId: EXAMPLE.userId, ...exampleProfile, createdAt: EXAMPLE.createdAt }],
  },
  'PUT /api/admin/users/:userId': {
    request: { firstName: 'Augusta', lastName: 'King' },
    response: { message: 'User updated successfully' },
    errors: { 404: ['User not found'], 409: ['Username or email already taken'] },
  },
  'DELETE /api/admin/users/:userId': {
    response: { message: 'User deleted successfully' },
    description: 'Transaction and payment records stay (financial history); the wallet key is archived, so its tokens stay reachable.',
    errors: { 404: ['User not found'] },
  },
  'GET /api/admin/transactions': {
    response: [exampleAdminTransaction],
    description:
      'Each movement once: the journal entries the service wrote (`origin` `service`) and the movements of its wallets made elsewhere and seen on the ledger (`origin` `ledger`). ' +
      'No `direction`: a movement between two users has a side for each; `userId` and `user` name its owner (a transfer\'s sender). `user` is null when the owner account has been deleted.',
  },
  'GET /api/admin/users/:userId/transactions': {
    response: [exampleTransaction, exampleReceivedMovement],
    description: "The user's list as the user reads it (GET /api/ledger/transactions/:userId), `direction` from that user's side; still answered for a deleted user's id.",
    errors: { 404: ['User not found'] },
  },
  'GET /api/admin/audit-log': {
    response: [
      {
        seq: '42',
        at: '2025-01-15T10:31:00.123Z',
        adminId: EXAMPLE.adminId,
        action: 'ledger.mint',
        target: EXAMPLE.userId,
        requestId: '6f1c2a0e-3b9d-4c55-9d0a-2f1e8b7c6d5a',
        ip: '203.0.113.7',
        details: { amount: '50.0000000', entryId: EXAMPLE.transactionId },
        prevHash: '9b4c2f0e7a1d3c5b8e6f4a2d0c9b7e5f3a1d8c6b4e2f0a9d7c5b3e1f8a6d4c2b',
        hash: '1e3a5c7b9d2f4e6a8c0b2d4f6e8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d2f4a',
      },
    ],
    description:
      'One row per admin action (logins and failed logins, provision, user update and delete, wallet secret reads, create-asset, mint-tokens, withdrawal finalize and cancel, key rotation from the CLI), ' +
      "each with the SHA-256 of the row before it and of its own canonical content: `npm run audit:verify` walks the chain and names the first row that does not fit. Never a secret in `details`. See the README, \"Admin log\".",
    errors: { 400: ['Invalid request'] },
  },
  'GET /api/admin/payments': {
    response: [
      {
        reference: EXAMPLE.reference,
        userId: EXAMPLE.userId,
        status: 'minted',
        amountNaira: '1500.50',
        currency: 'NGN',
        tokens: '1500.5000000',
        destinationPublicKey: EXAMPLE.publicKey,
        mintTxHash: EXAMPLE.txHash,
        failureReason: null,
        paidAt: '2025-01-15T10:31:00.000Z',
        nextCheckAt: null,
        checkAttempts: 1,
        createdAt: '2025-01-15T10:30:00.000Z',
        updatedAt: '2025-01-15T10:31:02.000Z',
      },
    ],
    description:
      'States: `initialized` (intent recorded, the provider has not said paid), `paid` (consumed, mint waiting for the wallet), ' +
      '`minting` (mint in the journal), `minted`, `failed` (`failureReason` set when it will never be minted). See the README, "Payment states".',
  },
  'POST /api/admin/webhook-endpoints': {
    request: { url: 'https://ops.example.com/wallet-hooks', eventTypes: ['payment.minted', 'withdrawal.paid'] },
    response: { ...exampleEndpoint, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    description:
      'Each event is POSTed as JSON with `webhook-id` (the event id, the same on every retry), `webhook-timestamp` and `webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, Standard Webhooks): verify with any Standard Webhooks library and the secret answered here once. ' +
      'A non-2xx answer or none within 15 s is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h; then the delivery is `failed` and the endpoint marked. The URL must be https and must not resolve to a private, loopback or link-local address (loopback over http is allowed outside production); checked again at every delivery. Redirects are not followed.',
    errors: { 400: ['Invalid webhook endpoint URL'] },
  },
  'GET /api/admin/webhook-endpoints': {
    response: [exampleEndpoint],
  },
  'DELETE /api/admin/webhook-endpoints/:id': {
    response: { message: 'Webhook endpoint deleted' },
    errors: { 404: ['Webhook endpoint not found'] },
  },
  'POST /api/admin/webhook-endpoints/:id/rotate-secret': {
    response: { ...exampleEndpoint, secret: 'whsec_Q2hhbmdlZCBzZWNyZXQgZm9yIGRvY3MgZXhh' },
    description: 'Deliveries carry the new secret\'s signature and, for 24 hours, the old one\'s beside it (space-separated in `webhook-signature`), so a receiver can switch without losing one.',
    errors: { 404: ['Webhook endpoint not found'] },
  },
  'POST /api/admin/webhook-endpoints/:id/replay': {
    request: { since: '2026-12-07T09:00:00Z' },
    response: { message: 'Replay queued', deliveries: 12 },
    description: 'Every event of the endpoint\'s types created since `since` is delivered again (same `webhook-id`: receivers deduplicate by it), on a new retry schedule.',
    errors: { 404: ['Webhook endpoint not found'] },
  },
  'GET /api/admin/webhook-endpoints/:id/deliveries': {
    response: [
      {
        deliveryId: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
        eventId: '0b7f7f4e-5a43-4c51-9d8e-0f1f3f3c2a10',
        eventType: 'payment.minted',
        status: 'pending',
        attempts: 2,
        lastStatus: 503,
        lastError: 'answered 503',
        nextAttemptAt: '2026-12-07T10:35:00.000Z',
        createdAt: '2026-12-07T10:00:00.000Z',
      },
    ],
    errors: { 404: ['Webhook endpoint not found'] },
  },
  'GET /api/admin/withdrawals': {
    response: [
      {
        ...exampleWithdrawal,
        status: 'waiting_float',
        reason: "The provider's balance cannot pay it yet",
        updatedAt: '2025-01-15T10:42:00.000Z',
        userId: EXAMPLE.userId,
        reference: `wdl-${EXAMPLE.withdrawalId}`,
        transferCode: null,
        providerStatus: null,
        transferCalls: 3,
        paidAt: null,
        nextCheckAt: '2025-01-15T10:44:00.000Z',
      },
    ],
    description:
      'States (`src/domain/withdrawal-lifecycle.ts`): `requested` -> `debiting` (the tokens leaving the wallet on the ledger) -> `debited` -> `sending` (a transfer call under `reference`) -> ' +
      '`processing` / `awaiting_otp` -> `paid`; `waiting_float` (the provider balance is short: nothing created, tried again under the same reference); ' +
      '`refund_due` -> `refunding` -> `refunded` (the tokens back, once: failed, abandoned, blocked, rejected, reversed even after `paid`, or an admin cancel); ' +
      '`debit_failed` and `cancelled` moved nothing. `transferCalls` counts the calls made under the one reference. See the README, "Cash-out (withdrawals)", for what an operator does in each waiting state.',
  },
  'POST /api/admin/withdrawals/:id/finalize': {
    request: { otp: '123456' },
    response: { message: 'OTP accepted', status: 'paid' },
    description:
      'For a withdrawal in `awaiting_otp` (the provider account asks an OTP for each transfer). `status` is the withdrawal\'s state after the provider\'s answer (`paid`, or `processing` while it still says pending). ' +
      'Nobody finalizing within 30 minutes: the provider abandons the transfer and the tokens go back to the wallet. The embedded sandbox provider\'s OTP is `123456`.',
    errors: {
      400: ['The provider refused the OTP'],
      404: ['Withdrawal not found'],
      409: ['Withdrawal is not waiting for an OTP (status: paid)'],
      502: ['Payment provider error'],
      503: ['Payment provider unavailable; the transfer is verified later'],
    },
  },
  'POST /api/admin/withdrawals/:id/cancel': {
    response: { message: 'Withdrawal cancelled', status: 'refunded' },
    description:
      'Only while no transfer can exist: before the tokens left (`cancelled`, nothing to give back), or in `debited` / `waiting_float` with every transfer call refused outright; ' +
      'the tokens then go back to the wallet by one journal entry (`status` is `refunded`, or `refund_due` / `refunding` while the ledger works on it). Once a call may have created a transfer, only the provider\'s final word ends the withdrawal: 409.',
    errors: { 404: ['Withdrawal not found'], 409: ['Withdrawal can be cancelled only before a transfer may exist'] },
  },
  'GET /api/admin/approvals': {
    response: [
      {
        approvalId: EXAMPLE.approvalId,
        action: 'mint',
        status: 'approved',
        userId: EXAMPLE.userId,
        amount: '5000.0000000',
        assetCode: 'WLT',
        requestedBy: EXAMPLE.adminId,
        decidedBy: EXAMPLE.secondAdminId,
        decidedAt: '2025-01-15T11:02:00.000Z',
        expiresAt: '2025-01-16T10:30:00.000Z',
        transactionId: EXAMPLE.transactionId,
        createdAt: EXAMPLE.createdAt,
      },
    ],
    description:
      'Each is a `mint-tokens` (`action: mint`) or `create-asset` (`action: issue`) request above MINT_APPROVAL_THRESHOLD, which moved nothing when it was made. ' +
      'States (`src/domain/approval-lifecycle.ts`): `pending` (waiting for a second admin, for 24 hours), `approved` (written through the journal once: `transactionId`), ' +
      '`rejected` and `expired` (never executed). A pending one past its 24 hours is listed as `expired`. See the README, "Two people for money creation".',
  },
  'POST /api/admin/approvals/:id/approve': {
    response: { success: true, message: `Minted 5000.0000000 WLT (transaction ${EXAMPLE.txHash})`, hash: EXAMPLE.txHash },
    accepted: {
      message: 'Mint submitted; the ledger has not confirmed it yet. Retry with the same Idempotency-Key for its status',
      result: { transactionId: EXAMPLE.transactionId, hash: EXAMPLE.txHash, status: 'pending' },
    },
    textAnswers: {
      200: `Issued 100000.0000000 WLT to the distribution account (transaction ${EXAMPLE.txHash})`,
      202: `Issuing 100000.0000000 WLT: submitted, outcome not known yet (transaction ${EXAMPLE.txHash}). Retry with the same Idempotency-Key for its status`,
    },
    description:
      'By an admin other than the one who asked. The request is written through the journal, once, and answered as its own route would have answered it: a mint as `mint-tokens` does (JSON), ' +
      'an issue as `create-asset` does (plain text); 202 while the ledger has not decided. Approving an approval already approved writes nothing: it answers that approval\'s transaction as it stands now ' +
      '(200 confirmed, 202 pending, or its refusal), with `Idempotent-Replayed: true`, so a retry after a timeout or a second approver is safe. A rejected or expired approval never executes.',
    errors: {
      403: ['You cannot approve your own request: another admin must'],
      404: ['Approval not found', 'User not found'],
      409: ['Approval is rejected: it never executes', 'Approval is expired: it never executes', 'User wallet is not active on the ledger yet; try again shortly'],
      502: ['Ledger rejected the transaction (tx_failed)'],
      503: [UNAVAILABLE.ledger],
    },
  },
  'POST /api/admin/approvals/:id/reject': {
    response: { message: 'Approval rejected', status: 'rejected' },
    description: 'Any admin, the requester too (who withdraws the request). Nothing is ever written for it. Rejecting one already rejected answers the same.',
    errors: { 404: ['Approval not found'], 409: ['Approval is approved: only a pending one can be rejected', 'Approval is expired: only a pending one can be rejected'] },
  },
  'GET /api/admin/users/:userId/wallet': {
    response: { ledgerPublicKey: EXAMPLE.publicKey, ledgerSecretKey: EXAMPLE.secretKey },
    description: 'Carries the wallet secret key: answered only over HTTPS in production (403 otherwise), never cached.',
    errors: { 404: ['User not found'] },
  },

  'GET /api/ledger/check-balance/:publicKey': {
    response: {
      balances: [
        { asset_type: 'credit_alphanum4', balance: '30.0000000' },
        { asset_type: 'native', balance: '2.4999900' },
      ],
    },
    errors: { 404: ['Account not found on the ledger'], 503: [UNAVAILABLE.ledger] },
  },
  'POST /api/ledger/transfer': {
    request: { receiverPublicKey: EXAMPLE.receiverPublicKey, amount: 20 },
    response: {
      message: 'Transfer successful',
      result: {
        hash: EXAMPLE.txHash,
        ledger: 1234,
        transactionId: EXAMPLE.transactionId,
        from: EXAMPLE.publicKey,
        to: EXAMPLE.receiverPublicKey,
        amount: '20.0000000',
        assetCode: 'WLT',
        status: 'confirmed',
      },
    },
    accepted: {
      message: 'Transfer submitted; the ledger has not confirmed it yet. Retry with the same Idempotency-Key or read your transactions for its status',
      result: { transactionId: EXAMPLE.transactionId, hash: EXAMPLE.txHash, status: 'pending' },
    },
    idempotent: true,
    description:
      '`amount` is a JSON number or a decimal string: positive, at most 7 decimal places. The record is written before the transaction is sent: ' +
      'when the ledger has not decided within the service\'s wait, the answer is 202 and the record says `pending` until it does. ' +
      'With an Idempotency-Key, a retry answers the same transaction\'s current state (200, 202, or its refusal) and never pays twice.',
    plainText400: 'Receiver account does not exist on the ledger',
    errors: {
      400: ['Insufficient balance', 'Receiver has no trustline for WLT'],
      409: ["The receiver's wallet is not active on the ledger yet", 'Idempotency-Key was already used with a different request'],
      502: ['Ledger rejected the transaction (tx_failed)'],
      503: [UNAVAILABLE.ledger],
    },
  },
  'GET /api/ledger/transactions/:userId': {
    response: [exampleTransaction, exampleReceivedMovement],
    description:
      'Only the caller\'s own userId; another id answers 403. Every movement of the caller\'s wallet, whoever made it: what they sent and received through the service ' +
      '(a transfer another user sent them is listed, owned by its sender), mints, clawbacks, withdrawals and refunds, and movements made elsewhere and seen on the ledger ' +
      '(`origin` `ledger`). A payment to oneself is listed once.',
  },
  'POST /api/ledger/create-asset': {
    request: { assetCode: 'WLT', amount: '1000' },
    response: `Issued 1000.0000000 WLT to the distribution account (transaction ${EXAMPLE.txHash})`,
    accepted: `Issuing 1000.0000000 WLT: submitted, outcome not known yet (transaction ${EXAMPLE.txHash}). Retry with the same Idempotency-Key for its status`,
    approval: `Issuing 100000.0000000 WLT needs a second admin's approval: nothing moves until another admin approves it (POST /api/admin/approvals/${EXAMPLE.approvalId}/approve)`,
    idempotent: true,
    description:
      '`assetCode` must be the service token code. The trustline on the distribution account is created when missing. ' +
      'When the ledger has not decided within the service\'s wait, the answer is 202 (plain text, a decision the spec leaves open); ' +
      'with an Idempotency-Key a retry answers the same issue\'s state and never issues twice. ' +
      'Above MINT_APPROVAL_THRESHOLD tokens nothing is issued: the answer is 202 plain text naming the approval, whose id is also in the `Approval-Id` header, ' +
      'and a second admin approves it (`POST /api/admin/approvals/{id}/approve`) within 24 hours; an Idempotency-Key is then bound to the approval.',
    errors: { 409: ['Idempotency-Key was already used with a different request'], 502: ['Ledger rejected the transaction (tx_failed)'], 503: [UNAVAILABLE.ledger] },
  },
  'GET /api/ledger/check-admin-balance/:publicKey': {
    response: {
      balances: [
        { asset_code: 'WLT', asset_issuer: EXAMPLE.issuerPublicKey, balance: '99950.0000000' },
        { asset_code: 'XLM', asset_issuer: '', balance: '9979.9999500' },
      ],
    },
    errors: { 404: ['Account not found on the ledger'], 503: [UNAVAILABLE.ledger] },
  },

  'POST /api/payments/create-payment-intent': {
    request: { amount: 5000 },
    response: { authorization_url: `https://checkout.paystack.com/0peioxfhpn`, access_code: '0peioxfhpn', reference: EXAMPLE.reference },
    description: '`amount` is in Naira (at most 2 decimal places); the provider is sent kobo (Naira x 100). Redirect the buyer to `authorization_url`.',
    // The account deleted between the token check and the read.
    errors: { 404: ['User not found'], 502: ['Payment provider error'], 503: [UNAVAILABLE.provider] },
  },
  'POST /api/payments/verify-payment': {
    request: { reference: EXAMPLE.reference },
    responses: {
      verified: { summary: 'Verified; the tokens are minted', value: { success: true, amount: 5000, userId: 'CUS_8d1x0q3k2w' } },
      alreadyProcessed: { summary: 'The reference was processed before', value: { success: false, message: 'Payment already processed' } },
    },
    description: 'Each reference succeeds once; a later call answers 200 `{success: false, message}`. A user may verify only their own payments.',
    errors: {
      400: ['Payment not successful (status: abandoned)'],
      404: ['Payment reference not found'],
      409: ['Payment received, but its tokens can not be minted: refused by the ledger'],
      502: ['Payment provider error'],
      503: [UNAVAILABLE.provider],
    },
  },
  'POST /api/payments/mint-tokens': {
    request: { userId: EXAMPLE.userId, amount: 50 },
    response: { success: true, message: `Minted 50.0000000 WLT (transaction ${EXAMPLE.txHash})`, hash: EXAMPLE.txHash },
    accepted: {
      message: 'Mint submitted; the ledger has not confirmed it yet. Retry with the same Idempotency-Key for its status',
      result: { transactionId: EXAMPLE.transactionId, hash: EXAMPLE.txHash, status: 'pending' },
    },
    approval: {
      success: true,
      message: `Minting 5000.0000000 WLT needs a second admin's approval: nothing moves until another admin approves it (POST /api/admin/approvals/${EXAMPLE.approvalId}/approve)`,
      approvalId: EXAMPLE.approvalId,
    },
    idempotent: true,
    description:
      '`amount` is in tokens. Minting creates money, so only an admin token is accepted. 202 when the ledger has not decided within the ' +
      'service\'s wait; with an Idempotency-Key a retry answers the same mint\'s state and never mints twice. ' +
      'Above MINT_APPROVAL_THRESHOLD tokens nothing is minted: the answer is 202 `{success: true, message, approvalId}` and a second admin approves it ' +
      '(`POST /api/admin/approvals/{id}/approve`) within 24 hours. An Idempotency-Key is then bound to the approval: the same body answers it again, another body is 409.',
    errors: {
      404: ['User not found'],
      409: ['User wallet is not active on the ledger yet; try again shortly', 'Idempotency-Key was already used with a different request'],
      502: ['Ledger rejected the transaction (tx_failed)'],
      503: [UNAVAILABLE.ledger],
    },
  },
  'GET /api/payments/banks': {
    response: [
      { name: 'Access Bank', code: '044' },
      { name: 'Guaranty Trust Bank', code: '058' },
      { name: 'Zenith Bank', code: '057' },
    ],
    description: "The provider's active NGN banks (Paystack's `GET /bank?currency=NGN`), kept for an hour. `code` is the `bankCode` of `POST /api/payments/payout-accounts`.",
    errors: { 502: ['Payment provider error'], 503: [UNAVAILABLE.provider] },
  },
  'POST /api/payments/payout-accounts': {
    request: { bankCode: '058', accountNumber: '0123456789' },
    response: examplePayoutAccount,
    description:
      "`accountNumber` is the 10-digit NUBAN. The provider resolves the account's name (the bank's, never the user's word) and registers it as a transfer recipient; nothing is stored for an account that does not resolve. " +
      'Adding an account you already have answers the same `payoutAccountId`.',
    errors: {
      400: ['Unknown bankCode: GET /api/payments/banks lists the banks payouts go to', 'The bank could not resolve this account number'],
      502: ['Payment provider error'],
      503: [UNAVAILABLE.provider],
    },
  },
  'GET /api/payments/payout-accounts': {
    response: [examplePayoutAccount],
    description: 'Your accounts, newest first; removed ones are not listed.',
  },
  'DELETE /api/payments/payout-accounts/:id': {
    response: { message: 'Payout account removed', success: true },
    description: 'The account can no longer be withdrawn to; withdrawals already made to it go on to the end (each keeps the account it pays).',
    errors: { 404: ['Payout account not found'] },
  },
  'POST /api/payments/withdrawals': {
    request: { amount: 2500, payoutAccountId: EXAMPLE.payoutAccountId },
    response: { ...exampleWithdrawal, status: 'debited', updatedAt: '2025-01-15T10:30:01.000Z' },
    idempotent: 'required',
    description:
      '**The Idempotency-Key header is required here**: the same key and body answer the first request\'s withdrawal as it stands now (`Idempotent-Replayed: true`), another body is 409, so a retry never withdraws twice. ' +
      '`amount` is in tokens (a JSON number or a decimal string); `naira` = amount / TOKENS_PER_NAIRA, exact to the kobo (an amount that is not whole kobo is 400), at least WITHDRAWAL_MIN_NAIRA, ' +
      'and within WITHDRAWAL_DAILY_LIMIT_NAIRA over the last 24 hours (withdrawals that paid or may still pay). ' +
      'The answer is always 202: the tokens leave the wallet on the ledger first (`debiting` -> `debited`), then the provider is asked to pay; follow `GET /api/payments/withdrawals/{id}` until `paid`, or `refunded` (the tokens came back).',
    errors: {
      400: [
        'Idempotency-Key header is required: send the same key when you retry',
        'Insufficient balance',
        'amount must be worth a whole number of kobo at the rate of 1.0000000 WLT per Naira',
        'The smallest withdrawal is 100.00 Naira',
        'Over the daily withdrawal limit of 1000000.00 Naira: 999000.00 Naira withdrawn in the last 24 hours',
      ],
      404: ['Payout account not found'],
      409: [
        'Your wallet is not active on the ledger yet; try again shortly',
        'You owe 120.0000000 WLT from a reversed payment: buy tokens to settle it before withdrawing',
        'Idempotency-Key was already used with a different request',
      ],
      503: [UNAVAILABLE.ledger],
    },
  },
  'GET /api/payments/withdrawals': {
    response: [exampleWithdrawal],
  },
  'GET /api/payments/withdrawals/:id': {
    response: exampleWithdrawal,
    description:
      '`status`: `requested`, `debiting`, `debited`, `sending`, `waiting_float`, `processing`, `awaiting_otp` (in flight), `paid`, `refund_due`, `refunding`, `refunded` (the tokens came back; `reason` says why), ' +
      '`debit_failed` or `cancelled` (nothing moved). A `paid` withdrawal the bank later reverses is refunded.',
    errors: { 404: ['Withdrawal not found'] },
  },
  'GET /api/payments/callback': {
    query: z.object({
      reference: z.string().max(100).optional().meta({ description: 'The payment reference (the provider adds it).' }),
      trxref: z.string().max(100).optional().meta({ description: 'The same reference under the name Paystack also uses.' }),
    }),
    response: '<!doctype html><html lang="en"><head><title>Payment successful</title></head><body>…</body></html>',
    description: "The provider redirects the buyer's browser here; the page shows the purchase (Naira paid, tokens bought, the balance once minted) whether this request, the webhook or the sweep settled it first, or what went wrong. Failures are HTML pages too.",
    errors: {
      400: ['The payment reference is missing or malformed.'],
      404: ['This payment reference is unknown.'],
      429: ['Too many requests. Wait a few minutes, then reload this page.'],
      502: ['The payment could not be verified. Reload this page in a moment.'],
      503: ['The payment provider could not be reached. Reload this page in a moment.'],
    },
  },
};

export const routeKey = (method: string, fullPath: string) => `${method.toUpperCase()} ${fullPath}`;
