import { z } from 'zod';
import { emailSchema, nameSchema, paginationQuery, passwordSchema, usernameSchema, uuidParam } from '../http/schemas';
import { secretResponse } from '../middleware/https-only';
import type { RateLimits } from '../middleware/rate-limit';
import type { AdminService } from '../services/admin.service';
import type { PaymentService } from '../services/payment.service';
import { loginOtpSchema } from './admin-mfa.routes';
import { adminPaymentItem, paymentListQuery, toAdminPayment } from './payment-record';
import { adminTransactionOf, adminTransactionRecordSchema, transactionRecordOf, transactionRecordSchema } from './transaction-record';
import { actorOf } from './admin-actor';
import { defineRoute } from './define-route';
import { credentialRoute, messageRoute, pagedRoute } from './route-kinds';
import type { RouteDef } from './route-table';

/** `otp`: the second factor, required once the admin's MFA is on (ignored before). */
export const adminLoginBody = z.object({ email: emailSchema, password: z.string().min(1).max(1024), otp: loginOtpSchema.optional() }).strict();
export const provisionBody = z.object({ email: emailSchema, password: passwordSchema }).strict();
export const updateUserBody = z
  .object({ username: usernameSchema, email: emailSchema, firstName: nameSchema, lastName: nameSchema })
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'send at least one of username, email, firstName, lastName');
const userIdParams = z.object({ userId: uuidParam }).strict();
export const auditLogQuery = paginationQuery
  .extend({ adminId: uuidParam.optional(), action: z.string().regex(/^[a-z_.]{1,64}$/, 'must be an action name such as ledger.mint').optional() })
  .strict();

export const auditLogItem = z.object({
  seq: z.string().describe('The row\'s place in the chain, from 1 (a decimal string)'),
  at: z.string().describe("The database's time of the action"),
  adminId: z.uuid().nullable().describe('Null for a failed login of an unknown address, and for the CLI'),
  action: z.string(),
  target: z.string().nullable(),
  requestId: z.string().nullable(),
  ip: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  prevHash: z.string().describe("The previous row's hash (64 zeros for the first)"),
  hash: z.string().describe("SHA-256 of prevHash and this row's canonical content"),
});

export const adminUserItem = z.object({
  userId: z.uuid(),
  username: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  ledgerPublicKey: z.string(),
  createdAt: z.string(),
});

export interface AdminRouteDeps {
  admins: AdminService;
  payments: PaymentService;
  rateLimits: RateLimits;
  requireHttpsForSecrets: boolean;
}

export function adminRoutes({ admins, payments, rateLimits, requireHttpsForSecrets }: AdminRouteDeps): RouteDef[] {
  return [
    credentialRoute(rateLimits, {
      path: '/login',
      rateLimit: 'admin.login',
      summary: 'Admin log in',
      body: adminLoginBody,
      message: 'Login successful',
      fields: { token: z.string() },
      act: ({ email, password, otp }, req) => admins.login(email, password, actorOf(req), otp),
    }),
    messageRoute({
      method: 'post',
      path: '/provision',
      access: 'admin',
      summary: 'Create another admin account',
      request: { body: provisionBody },
      status: 201,
      message: 'Admin created successfully',
      fields: { adminId: z.uuid() },
      act: (req, res) => admins.provision(req.body.email, req.body.password, actorOf(req, res)),
    }),
    pagedRoute({
      path: '/users',
      access: 'admin',
      summary: 'List users (paginated; total in X-Total-Count)',
      item: adminUserItem,
      fetch: ({ limit, offset }) => admins.listUsers(limit, offset),
      toItem: (u) => ({
        userId: u.id,
        username: u.username,
        email: u.email,
        firstName: u.firstName,
        lastName: u.lastName,
        ledgerPublicKey: u.ledgerPublicKey ?? '',
        createdAt: u.createdAt.toISOString(),
      }),
    }),
    messageRoute({
      method: 'put',
      path: '/users/:userId',
      access: 'admin',
      summary: 'Update the fields sent of a user',
      request: { params: userIdParams, body: updateUserBody },
      message: 'User updated successfully',
      act: (req, res) => admins.updateUser(req.params.userId, req.body, actorOf(req, res)),
    }),
    messageRoute({
      method: 'delete',
      path: '/users/:userId',
      access: 'admin',
      summary: 'Delete a user permanently (the wallet key is archived)',
      request: { params: userIdParams },
      message: 'User deleted successfully',
      act: (req, res) => admins.deleteUser(req.params.userId, actorOf(req, res)),
    }),
    pagedRoute({
      path: '/transactions',
      access: 'admin',
      summary: "Every transaction record, each movement once (the service's and those seen on the ledger), newest first, with the owner nested as `user`",
      item: adminTransactionRecordSchema,
      fetch: ({ limit, offset }) => admins.allTransactions(limit, offset),
      toItem: adminTransactionOf,
    }),
    pagedRoute({
      path: '/users/:userId/transactions',
      access: 'admin',
      summary: "A user's transaction records: every movement of their wallet, newest first",
      params: userIdParams,
      item: transactionRecordSchema,
      fetch: ({ limit, offset }, req) => admins.userTransactions(req.params.userId, limit, offset),
      toItem: transactionRecordOf,
    }),
    pagedRoute({
      path: '/audit-log',
      access: 'admin',
      summary: 'The hash-chained admin log, newest first, optionally of one admin (?adminId=) and one action (?action=); total in X-Total-Count',
      query: auditLogQuery,
      item: auditLogItem,
      fetch: (query) => admins.auditLog(query),
      toItem: (row) => ({
        seq: row.seq.toString(),
        at: row.at.toISOString(),
        adminId: row.adminId,
        action: row.action,
        target: row.target,
        requestId: row.requestId,
        ip: row.ip,
        details: row.details as Record<string, unknown>,
        prevHash: row.prevHash,
        hash: row.hash,
      }),
    }),
    pagedRoute({
      path: '/payments',
      access: 'admin',
      summary: 'Purchases, newest first, optionally of one state (?status=); total in X-Total-Count',
      query: paymentListQuery,
      item: adminPaymentItem,
      fetch: (query) => payments.list(query),
      toItem: toAdminPayment,
    }),
    defineRoute({
      method: 'get',
      path: '/users/:userId/wallet',
      access: 'admin',
      summary: "A user's wallet keys",
      before: [secretResponse(requireHttpsForSecrets)],
      request: { params: userIdParams },
      response: { status: 200, schema: z.object({ ledgerPublicKey: z.string(), ledgerSecretKey: z.string() }) },
      handler: async (req, res) => {
        res.json(await admins.userWallet(req.params.userId, actorOf(req, res)));
      },
    }),
  ];
}
