import { z } from 'zod';
import { principalOf } from '../middleware/auth';
import { secretResponse } from '../middleware/https-only';
import type { RateLimits } from '../middleware/rate-limit';
import { emailSchema, nameSchema, passwordSchema, usernameSchema } from '../http/schemas';
import type { PasswordResetService } from '../services/password-reset.service';
import type { UserService } from '../services/user.service';
import { defineRoute } from './define-route';
import { credentialRoute } from './route-kinds';
import type { RouteDef } from './route-table';

export const signupBody = z
  .object({ username: usernameSchema, email: emailSchema, password: passwordSchema, firstName: nameSchema, lastName: nameSchema })
  .strict();
export const loginBody = z.object({ identifier: z.string().trim().min(1).max(254), password: z.string().min(1).max(1024) }).strict();
export const resetEmailBody = z.object({ email: emailSchema }).strict();
export const resetPasswordBody = z.object({ token: z.string().min(1).max(4096), newPassword: passwordSchema }).strict();

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

export function usersRoutes({ users, resets, rateLimits, requireHttpsForSecrets }: UsersRouteDeps): RouteDef[] {
  return [
    credentialRoute(rateLimits, {
      path: '/signup',
      rateLimit: 'users.signup',
      summary: 'Create an account and its ledger wallet',
      body: signupBody,
      // The spec documents a duplicate signup as 400, not 409.
      errors: { status: { CONFLICT: 400 } },
      status: 201,
      message: 'User registered successfully',
      fields: { userId: z.uuid() },
      act: (body) => users.signup(body),
    }),
    credentialRoute(rateLimits, {
      path: '/login',
      rateLimit: 'users.login',
      summary: 'Log in with a username or e-mail',
      body: loginBody,
      message: 'Login successful',
      fields: { token: z.string(), profile: profileSchema },
      act: ({ identifier, password }) => users.login(identifier, password),
    }),
    defineRoute({
      method: 'get',
      path: '/profile',
      access: 'user',
      summary: "The caller's profile, with the wallet keys",
      before: [secretResponse(requireHttpsForSecrets)],
      response: { status: 200, schema: profileSchema.extend({ ledgerSecretKey: z.string() }) },
      handler: async (_req, res) => {
        res.json(await users.profileWithSecret(principalOf(res).id));
      },
    }),
    credentialRoute(rateLimits, {
      path: '/send-reset-password-email',
      rateLimit: 'users.reset-email',
      summary: 'E-mail a one-hour password reset link',
      body: resetEmailBody,
      message: 'If an account exists for that email, a password reset link has been sent',
      act: ({ email }) => resets.requestReset(email),
    }),
    credentialRoute(rateLimits, {
      path: '/reset-password',
      rateLimit: 'users.reset-password',
      summary: 'Set a new password with the token from the reset e-mail',
      body: resetPasswordBody,
      message: 'Password has been reset successfully',
      act: ({ token, newPassword }) => resets.resetPassword(token, newPassword),
    }),
  ];
}
