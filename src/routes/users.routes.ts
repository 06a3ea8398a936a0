import { z } from 'zod';
import { principalOf } from '../middleware/auth';
import { secretResponse } from '../middleware/https-only';
import type { RateLimits } from '../middleware/rate-limit';
import { emailSchema, nameSchema, passwordSchema, usernameSchema } from '../http/schemas';
import type { PasswordResetService } from '../services/password-reset.service';
import type { UserService } from '../services/user.service';
import { defineRoute } from './define-route';
import type { RouteDef } from './route-table';

export const signupBody = z
  .object({ username: usernameSchema, email: emailSchema, password: passwordSchema, firstName: nameSchema, lastName: nameSchema })
  .strict();
export const loginBody = z.object({ identifier: z.string().trim().min(1).max(254), password: z.string().min(1).max(1024) }).strict();
export const resetEmailBody = z.object({ email: emailSchema }).strict();
export const resetPasswordBody = z.object({ token: z.string().min(1).max(4096), newPassword: passwordSchema }).strict();

const message = z.object({ message: z.string() });
export const profileSchema = z.object({
  username: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  ledgerPublicKey: z.string(),
});

export interface UsersRouteDeps {
  users: UserService;
  resets: PasswordResetService;
  rateLimits: RateLimits;
  requireHttpsForSecrets: boolean;
}

export function usersRoutes(deps: UsersRouteDeps): RouteDef[] {
  const { users, resets } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/signup',
      access: 'public',
      summary: 'Create an account and its ledger wallet',
      before: [deps.rateLimits.auth('users.signup')],
      request: { body: signupBody },
      response: { status: 201, schema: message.extend({ userId: z.uuid() }) },
      // The spec documents a duplicate signup as 400, not 409.
      errors: { status: { CONFLICT: 400 } },
      handler: async (req, res) => {
        const { userId } = await users.signup(req.body);
        res.status(201).json({ message: 'User registered successfully', userId });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/login',
      access: 'public',
      summary: 'Log in with a username or e-mail',
      before: [deps.rateLimits.auth('users.login')],
      request: { body: loginBody },
      response: { status: 200, schema: message.extend({ token: z.string(), profile: profileSchema }) },
      handler: async (req, res) => {
        const { identifier, password } = req.body;
        const { token, profile } = await users.login(identifier, password);
        res.json({ message: 'Login successful', token, profile });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/profile',
      access: 'user',
      summary: "The caller's profile, with the wallet keys",
      before: [secretResponse(deps.requireHttpsForSecrets)],
      response: { status: 200, schema: profileSchema.extend({ ledgerSecretKey: z.string() }) },
      handler: async (_req, res) => {
        res.json(await users.profileWithSecret(principalOf(res).id));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/send-reset-password-email',
      access: 'public',
      summary: 'E-mail a one-hour password reset link',
      before: [deps.rateLimits.auth('users.reset-email')],
      request: { body: resetEmailBody },
      response: { status: 200, schema: message },
      handler: async (req, res) => {
        await resets.requestReset(req.body.email);
        res.json({ message: 'If an account exists for that email, a password reset link has been sent' });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/reset-password',
      access: 'public',
      summary: 'Set a new password with the token from the reset e-mail',
      before: [deps.rateLimits.auth('users.reset-password')],
      request: { body: resetPasswordBody },
      response: { status: 200, schema: message },
      handler: async (req, res) => {
        const { token, newPassword } = req.body;
        await resets.resetPassword(token, newPassword);
        res.json({ message: 'Password has been reset successfully' });
      },
    }),
  ];
}
