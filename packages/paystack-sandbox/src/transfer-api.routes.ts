import express, { Router, type RequestHandler } from 'express';
import { apiErrorHandler, parseOrReject } from './api-error-handler';
import { createRecipientBody, finalizeTransferBody, initiateTransferBody, listTransfersQuery } from './schemas';
import { requireSecretKey } from './secret-key-auth';
import type { TransferService } from './transfer.service';

function listBanks(transfers: TransferService): RequestHandler {
  return (req, res) => {
    // Paystack lists other countries' banks too; the sandbox only knows Nigeria's.
    const currency = typeof req.query.currency === 'string' ? req.query.currency : 'NGN';
    res.json({ status: true, message: 'Banks retrieved', data: currency === 'NGN' ? transfers.banks() : [] });
  };
}

function resolveAccount(transfers: TransferService): RequestHandler {
  return (req, res) => {
    const accountNumber = typeof req.query.account_number === 'string' ? req.query.account_number : '';
    const bankCode = typeof req.query.bank_code === 'string' ? req.query.bank_code : '';
    res.json({ status: true, message: 'Account number resolved', data: transfers.resolveAccount(accountNumber, bankCode) });
  };
}

function createRecipient(transfers: TransferService): RequestHandler {
  return async (req, res) => {
    const body = parseOrReject(createRecipientBody, req.body ?? {}, res);
    if (!body) return;
    res.status(201).json({ status: true, message: 'Transfer recipient created successfully', data: await transfers.createRecipient(body) });
  };
}

/**
 * `POST /transfer`, with the fault a control planned for it: `500-before` answers before anything
 * exists; `504-after-create` and `reset-after-create` create the transfer (and let it go) and then
 * answer a gateway timeout or destroy the connection, so the caller cannot tell what happened.
 */
function initiateTransfer(transfers: TransferService): RequestHandler {
  return async (req, res) => {
    const body = parseOrReject(initiateTransferBody, req.body ?? {}, res);
    if (!body) return;
    const fault = transfers.takeFault(body.reference);
    if (fault === '500-before') {
      res.status(500).json({ status: false, message: 'An error occurred' });
      return;
    }
    const data = await transfers.initiate(body);
    if (fault === '504-after-create') {
      res.status(504).json({ status: false, message: 'Gateway Time-out' });
      return;
    }
    if (fault === 'reset-after-create') {
      req.socket.destroy();
      return;
    }
    const message = data.status === 'otp' ? 'Transfer requires OTP to continue' : 'Transfer has been queued';
    res.json({ status: true, message, data });
  };
}

function finalizeTransfer(transfers: TransferService): RequestHandler {
  return async (req, res) => {
    const body = parseOrReject(finalizeTransferBody, req.body ?? {}, res);
    if (!body) return;
    res.json({ status: true, message: 'Transfer has been queued', data: await transfers.finalize(body.transfer_code, body.otp) });
  };
}

function verifyTransfer(transfers: TransferService): RequestHandler<{ reference: string }> {
  return (req, res) => {
    res.json({ status: true, message: 'Transfer retrieved', data: transfers.verify(req.params.reference) });
  };
}

function listTransfers(transfers: TransferService): RequestHandler {
  return (req, res) => {
    const query = parseOrReject(listTransfersQuery, req.query, res);
    if (!query) return;
    res.json({ status: true, message: 'Transfers retrieved', ...transfers.list(query) });
  };
}

function balance(transfers: TransferService): RequestHandler {
  return (_req, res) => {
    res.json({ status: true, message: 'Balances retrieved', data: transfers.balance() });
  };
}

/** Paystack's Transfers API (banks, recipients, transfers, balance): path -> secret-key auth -> handler. */
export function createTransferApiRouter(transfers: TransferService, secretKey: string): Router {
  const router = Router();
  const auth = requireSecretKey(secretKey);
  const parseBody = [express.json(), express.urlencoded({ extended: false })];

  router.get('/bank', auth, listBanks(transfers));
  router.get('/bank/resolve', auth, resolveAccount(transfers));
  router.post('/transferrecipient', auth, parseBody, createRecipient(transfers));
  router.post('/transfer', auth, parseBody, initiateTransfer(transfers));
  router.post('/transfer/finalize_transfer', auth, parseBody, finalizeTransfer(transfers));
  router.get('/transfer', auth, listTransfers(transfers));
  router.get('/transfer/verify/:reference', auth, verifyTransfer(transfers));
  router.get('/balance', auth, balance(transfers));
  for (const prefix of ['/bank', '/transferrecipient', '/transfer', '/balance']) {
    router.use(prefix, auth, (_req, res) => {
      res.status(404).json({ status: false, message: 'Not found in the Paystack sandbox' });
    });
  }
  router.use(apiErrorHandler);
  return router;
}
