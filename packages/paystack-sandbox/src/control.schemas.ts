import { z } from 'zod';
import { DISPUTE_RESOLUTIONS } from './dispute';
import { amountKobo } from './schemas';
import { NOT_YET_STATUSES } from './transaction';
import { TRANSFER_OUTCOMES } from './transfer';

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

export const setBalanceBody = z.object(
  {
    balance: z
      .number({ error: 'balance must be a whole number of kobo, 0 or more' })
      .int({ error: 'balance must be a whole number of kobo, 0 or more' })
      .nonnegative({ error: 'balance must be a whole number of kobo, 0 or more' })
      .max(Number.MAX_SAFE_INTEGER, { error: 'balance must be a whole number of kobo, 0 or more' }),
  },
  { error: 'Invalid request body' },
);

export const otpSwitchBody = z.object({ enabled: z.boolean({ error: 'enabled must be true or false' }) }, { error: 'Invalid request body' });

const count = z.number({ error: 'count must be a whole number from 1' }).int({ error: 'count must be a whole number from 1' }).min(1, { error: 'count must be a whole number from 1' });

/** For one transfer yet to come (by `reference`) or the next `count` (default 1) without a plan of their own. */
const target = {
  reference: z.string({ error: 'reference must be a string' }).min(1).optional(),
  count: count.default(1),
};

export const nextTransferBody = z.object(
  { outcome: z.enum(TRANSFER_OUTCOMES, { error: `outcome must be one of ${TRANSFER_OUTCOMES.join(', ')}` }), ...target },
  { error: 'Invalid request body' },
);

export const TRANSFER_FAULTS = ['504-after-create', 'reset-after-create', '500-before'] as const;
export type TransferFault = (typeof TRANSFER_FAULTS)[number];

export const transferFaultBody = z.object(
  { fault: z.enum(TRANSFER_FAULTS, { error: `fault must be one of ${TRANSFER_FAULTS.join(', ')}` }), ...target },
  { error: 'Invalid request body' },
);

export const CONTROLLED_TRANSFER_STATUSES = ['success', 'failed', 'reversed', 'abandoned'] as const;
export type ControlledTransferStatus = (typeof CONTROLLED_TRANSFER_STATUSES)[number];

export const setTransferStatusBody = z.object(
  {
    status: z.enum(CONTROLLED_TRANSFER_STATUSES, { error: `status must be one of ${CONTROLLED_TRANSFER_STATUSES.join(', ')}` }),
    // `false` moves the transfer without its `transfer.*` webhook, as when Paystack's is lost.
    webhook: z.boolean({ error: 'webhook must be true or false' }).default(true),
  },
  { error: 'Invalid request body' },
);
