import path from 'node:path';
import { z } from 'zod';

/**
 * What a service process asks of the sandbox host it starts: which stand-ins to run and how. Passed
 * to the host's process as JSON in one environment variable (the host is a program of this
 * repository, not a user interface: a malformed value is a bug, and the host says so and exits).
 */
export const hostOptionsSchema = z.object({
  dataDir: z.string().min(1),
  ledger: z
    .object({
      networkPassphrase: z.string().min(1),
      ledgerCloseMs: z.number().int().min(0),
      maxOperationsPerLedger: z.number().int().min(0),
    })
    .optional(),
  paystack: z.object({ secretKey: z.string().min(1), webhookUrl: z.string().url(), publicUrl: z.string().url() }).optional(),
  /** How long the host stays up with no service process attached (a restart within it finds it running). */
  idleExitMs: z.number().int().min(0),
  /** The port the host listened on before (the attached processes' clients still name it), if any. */
  preferredPort: z.number().int().min(0).max(65535).optional(),
});
export type HostOptions = z.infer<typeof hostOptionsSchema>;

export const HOST_OPTIONS_VARIABLE = 'WALLET_SANDBOX_HOST';

/** The host's files in DATA_DIR: who runs (pid and port), the start lock, and the host's own log. */
export function hostFiles(dataDir: string) {
  return {
    state: path.join(dataDir, 'sandbox-host.json'),
    lock: path.join(dataDir, 'sandbox-host.lock'),
    log: path.join(dataDir, 'sandbox-host.log'),
  };
}

/** Paths the host serves, as the service's own port served them before (public URLs unchanged). */
export const SANDBOX_PATHS = { horizon: '/sandbox/horizon', rpc: '/sandbox/rpc', paystack: '/sandbox/paystack' } as const;
/** The host's own control path: attachments, health. Never proxied from the service's port. */
export const HOST_CONTROL_PATH = '/_host';
