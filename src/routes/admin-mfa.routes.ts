import { z } from 'zod';
import { principalOf } from '../middleware/auth';
import { secretResponse } from '../middleware/https-only';
import type { RateLimits } from '../middleware/rate-limit';
import { RECOVERY_CODE } from '../security/recovery-codes';
import { TOTP_CODE } from '../security/totp';
import type { AdminMfaService } from '../services/admin-mfa.service';
import { qrSvg } from '../views/qr-code';
import { messageRoute } from './route-kinds';
import { actorOf } from './admin-actor';
import type { RouteDef } from './route-table';

/** A code from the authenticator app. */
export const totpCodeSchema = z.string().trim().regex(TOTP_CODE, 'must be the 6-digit code of the authenticator app');
/** An admin login's second factor: a code from the authenticator app, or one of the recovery codes. */
export const loginOtpSchema = z
  .string()
  .trim()
  .regex(new RegExp(`${TOTP_CODE.source}|${RECOVERY_CODE.source}`), 'must be the 6-digit code of the authenticator app or a recovery code');

export const mfaSetupBody = z.object({ password: z.string().min(1).max(1024) }).strict();
export const mfaConfirmBody = z.object({ otp: totpCodeSchema }).strict();

export interface AdminMfaRouteDeps {
  mfa: AdminMfaService;
  rateLimits: RateLimits;
  requireHttpsForSecrets: boolean;
}

/**
 * An admin's MFA enrolment, in the admin group. Both routes take the setup-only token an admin
 * without MFA gets while ADMIN_MFA_REQUIRED is on; both answer a secret once (the TOTP secret in
 * the URI and QR code, the recovery codes), so they are HTTPS-only where secrets are and never
 * cached; both take a credential, so the credential rate limit counts them.
 */
export function adminMfaRoutes({ mfa, rateLimits, requireHttpsForSecrets }: AdminMfaRouteDeps): RouteDef[] {
  return [
    messageRoute({
      method: 'post',
      path: '/mfa/setup',
      access: 'admin',
      acceptsScope: 'mfa-setup',
      summary: 'Start MFA enrolment: a new TOTP secret, as an otpauth:// URI and its QR code (SVG)',
      rateLimit: rateLimits.auth('admin.mfa.setup'),
      before: [secretResponse(requireHttpsForSecrets)],
      request: { body: mfaSetupBody },
      message: 'Scan the QR code with an authenticator app, then confirm with its code',
      fields: { otpauthUri: z.string(), qrSvg: z.string() },
      act: async (req, res) => {
        const { otpauthUri } = await mfa.setup(principalOf(res).id, req.body.password, actorOf(req, res));
        return { otpauthUri, qrSvg: await qrSvg(otpauthUri) };
      },
    }),
    messageRoute({
      method: 'post',
      path: '/mfa/confirm',
      access: 'admin',
      acceptsScope: 'mfa-setup',
      summary: 'Turn MFA on with a first code; answers the ten one-time recovery codes, once',
      rateLimit: rateLimits.auth('admin.mfa.confirm'),
      before: [secretResponse(requireHttpsForSecrets)],
      request: { body: mfaConfirmBody },
      message: 'MFA is on: keep the recovery codes safe, each works once and they are not shown again',
      fields: { recoveryCodes: z.array(z.string()) },
      act: (req, res) => mfa.confirm(principalOf(res).id, req.body.otp, actorOf(req, res)),
    }),
  ];
}
