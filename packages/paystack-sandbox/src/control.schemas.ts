import { z } from 'zod';
import { DISPUTE_RESOLUTIONS } from './dispute';
import { amountKobo } from './schemas';
import { NOT_YET_STATUSES } from './transaction';

/** The bodies of the sandbox-only controls; their messages follow the API's `{status:false, message}`. */

export const setStatusBody = z.object(
  {
    status: z.enum([...NOT_YET_STATUSES, 'success', 'failed'], {
      error: `status must be one of ${[...NOT_YET_STATUSES, 'success', 'failed'].join(', ')}`,
    }),
    // Only `success` sends a webhook; `false` there simulates Paystack's webhook getting lost.
    webhook: z.boolean({ error: 'webhook must be true or false' }).default(true),
  },
  { error: 'Invalid request body' },
);

export const openDisputeBody = z
  .object({ refund_amount: amountKobo.optional() }, { error: 'Invalid request body' })
  .default({});

export const resolveDisputeBody = z.object(
  {
    resolution: z.enum(DISPUTE_RESOLUTIONS, { error: `resolution must be one of ${DISPUTE_RESOLUTIONS.join(', ')}` }),
  },
  { error: 'Invalid request body' },
);
