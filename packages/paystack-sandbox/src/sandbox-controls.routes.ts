import express, { Router, type RequestHandler } from 'express';
import { apiErrorHandler, parseOrReject } from './api-error-handler';
import type { ChargeService } from './charge.service';
import {
  nextTransferBody,
  openDisputeBody,
  otpSwitchBody,
  resolveDisputeBody,
  setBalanceBody,
  setStatusBody,
  setTransferStatusBody,
  transferFaultBody,
} from './control.schemas';
import { CONTROL_ROUTES } from './control-paths';
import type { DisputeService } from './dispute.service';
import { PaystackSandboxError } from './errors';
import { requireSecretKey } from './secret-key-auth';
import type { TransferService } from './transfer.service';

/**
 * The provider's bad days on demand: what Paystack does on its own (a charge stuck `ongoing`, a
 * lost webhook, a chargeback, a payout that fails or comes back, an answer lost after the transfer
 * was made) done when a test asks. Not part of Paystack's API; answers in its
 * `{status, message, data}` envelope all the same.
 */

function setStatus(charges: ChargeService): RequestHandler<{ reference: string }> {
  return async (req, res) => {
    const body = parseOrReject(setStatusBody, req.body ?? {}, res);
    if (!body) return;
    const data = await charges.setStatus(req.params.reference, body.status, { webhook: body.webhook });
    res.json({ status: true, message: 'Transaction status updated', data });
  };
}

function openDispute(disputes: DisputeService): RequestHandler<{ reference: string }> {
  return async (req, res) => {
    const body = parseOrReject(openDisputeBody, req.body ?? {}, res);
    if (!body) return;
    const data = await disputes.open(req.params.reference, body.refund_amount);
    res.json({ status: true, message: 'Dispute created', data });
  };
}

function disputeId(raw: string): number {
  const id = Number(raw);
  if (!Number.isSafeInteger(id)) throw new PaystackSandboxError('dispute_not_found', 'Dispute not found');
  return id;
}

function remindDispute(disputes: DisputeService): RequestHandler<{ id: string }> {
  return async (req, res) => {
    const data = await disputes.remind(disputeId(req.params.id));
    res.json({ status: true, message: 'Dispute reminder sent', data });
  };
}

function resolveDispute(disputes: DisputeService): RequestHandler<{ id: string }> {
  return async (req, res) => {
    const body = parseOrReject(resolveDisputeBody, req.body ?? {}, res);
    if (!body) return;
    const data = await disputes.resolve(disputeId(req.params.id), body.resolution);
    res.json({ status: true, message: 'Dispute successfully resolved', data });
  };
}

function setBalance(transfers: TransferService): RequestHandler {
  return async (req, res) => {
    const body = parseOrReject(setBalanceBody, req.body ?? {}, res);
    if (!body) return;
    res.json({ status: true, message: 'Balance set', data: await transfers.setBalance(body.balance) });
  };
}

function switchOtp(transfers: TransferService): RequestHandler {
  return (req, res) => {
    const body = parseOrReject(otpSwitchBody, req.body ?? {}, res);
    if (!body) return;
    res.json({ status: true, message: body.enabled ? 'Transfers now need an OTP' : 'Transfers no longer need an OTP', data: transfers.setOtpRequired(body.enabled) });
  };
}

function planNextTransfer(transfers: TransferService): RequestHandler {
  return (req, res) => {
    const body = parseOrReject(nextTransferBody, req.body ?? {}, res);
    if (!body) return;
    transfers.planOutcome(body.outcome, body);
    res.json({ status: true, message: 'Transfer outcome planned', data: body });
  };
}

function planTransferFault(transfers: TransferService): RequestHandler {
  return (req, res) => {
    const body = parseOrReject(transferFaultBody, req.body ?? {}, res);
    if (!body) return;
    transfers.planFault(body.fault, body);
    res.json({ status: true, message: 'Transfer fault planned', data: body });
  };
}

function setTransferStatus(transfers: TransferService): RequestHandler<{ reference: string }> {
  return async (req, res) => {
    const body = parseOrReject(setTransferStatusBody, req.body ?? {}, res);
    if (!body) return;
    const data = await transfers.setStatus(req.params.reference, body.status, { webhook: body.webhook });
    res.json({ status: true, message: 'Transfer status updated', data });
  };
}

/** path -> secret-key auth -> handler, one row per control. */
export function createSandboxControlsRouter(
  charges: ChargeService,
  disputes: DisputeService,
  transfers: TransferService,
  secretKey: string,
): Router {
  const router = Router();
  const auth = requireSecretKey(secretKey);
  const parseBody = express.json();

  router.post(CONTROL_ROUTES.transactionStatus, auth, parseBody, setStatus(charges));
  router.post(CONTROL_ROUTES.openDispute, auth, parseBody, openDispute(disputes));
  router.post(CONTROL_ROUTES.remindDispute, auth, remindDispute(disputes));
  router.post(CONTROL_ROUTES.resolveDispute, auth, parseBody, resolveDispute(disputes));
  router.post(CONTROL_ROUTES.balance, auth, parseBody, setBalance(transfers));
  router.post(CONTROL_ROUTES.transferOtp, auth, parseBody, switchOtp(transfers));
  router.post(CONTROL_ROUTES.nextTransfer, auth, parseBody, planNextTransfer(transfers));
  router.post(CONTROL_ROUTES.transferFault, auth, parseBody, planTransferFault(transfers));
  router.post(CONTROL_ROUTES.transferStatus, auth, parseBody, setTransferStatus(transfers));
  router.use('/sandbox', auth, (_req, res) => {
    res.status(404).json({ status: false, message: 'No such sandbox control' });
  });
  router.use('/sandbox', apiErrorHandler);
  return router;
}
