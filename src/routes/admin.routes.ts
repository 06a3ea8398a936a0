import { z } from 'zod';
import { emailSchema, nameSchema, passwordSchema, usernameSchema, uuidParam } from '../http/schemas';
import { secretResponse } from '../middleware/https-only';
import type { RateLimits } from '../middleware/rate-limit';
import type { AdminService } from '../services/admin.service';
import { toAdminTransaction, toTransactionRecord, transactionRecordSchema } from './transaction-record';
import { defineRoute } from './define-route';
import { pagedRoute } from './route-kinds';
import type { RouteDef } from './route-table';

export const adminLoginBody = z.object({ email: emailSchema, password: z.string().min(1).max(1024) }).strict();
export const provisionBody = z.object({ email: emailSchema, password: passwordSchema }).strict();
export const updateUserBody = z
  .object({ username: usernameSchema, email: emailSchema, firstName: nameSchema, lastName: nameSchema })
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'send at least one of username, email, firstName, lastName');
const userIdParams = z.object({ userId: uuidParam }).strict();

const message = z.object({ message: z.string() });
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
  rateLimits: RateLimits;
  requireHttpsForSecrets: boolean;
}

export function adminRoutes(deps: AdminRouteDeps): RouteDef[] {
  const { admins } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/login',
      access: 'public',
      summary: 'Admin log in',
      before: [deps.rateLimits.auth('admin.login')],
      request: { body: adminLoginBody },
      response: { status: 200, schema: message.extend({ token: z.string() }) },
      handler: async (req, res) => {
        const { email, password } = req.body;
        const { token } = await admins.login(email, password);
        res.json({ message: 'Login successful', token });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/provision',
      access: 'admin',
      summary: 'Create another admin account',
      request: { body: provisionBody },
      response: { status: 201, schema: message.extend({ adminId: z.uuid() }) },
      handler: async (req, res) => {
        const { email, password } = req.body;
        const { adminId } = await admins.provision(email, password);
        res.status(201).json({ message: 'Admin created successfully', adminId });
      },
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
    defineRoute({
      method: 'put',
      path: '/users/:userId',
      access: 'admin',
      summary: 'Update the fields sent of a user',
      request: { params: userIdParams, body: updateUserBody },
      response: { status: 200, schema: message },
      handler: async (req, res) => {
        await admins.updateUser(req.params.userId, req.body);
        res.json({ message: 'User updated successfully' });
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/users/:userId',
      access: 'admin',
      summary: 'Delete a user permanently (the wallet key is archived)',
      request: { params: userIdParams },
      response: { status: 200, schema: message },
      handler: async (req, res) => {
        await admins.deleteUser(req.params.userId);
        res.json({ message: 'User deleted successfully' });
      },
    }),
    pagedRoute({
      path: '/transactions',
      access: 'admin',
      summary: "All users' transaction records, newest first, with the owner nested as `user`",
      item: transactionRecordSchema.extend({ user: z.object({ username: z.string(), email: z.string() }).nullable() }),
      fetch: ({ limit, offset }) => admins.allTransactions(limit, offset),
      toItem: toAdminTransaction,
    }),
    pagedRoute({
      path: '/users/:userId/transactions',
      access: 'admin',
      summary: "A user's transaction records, newest first",
      params: userIdParams,
      item: transactionRecordSchema,
      fetch: ({ limit, offset }, req) => admins.userTransactions(req.params.userId, limit, offset),
      toItem: toTransactionRecord,
    }),
    defineRoute({
      method: 'get',
      path: '/users/:userId/wallet',
      access: 'admin',
      summary: "A user's wallet keys",
      before: [secretResponse(deps.requireHttpsForSecrets)],
      request: { params: userIdParams },
      response: { status: 200, schema: z.object({ ledgerPublicKey: z.string(), ledgerSecretKey: z.string() }) },
      handler: async (req, res) => {
        res.json(await admins.userWallet(req.params.userId));
      },
    }),
  ];
}
