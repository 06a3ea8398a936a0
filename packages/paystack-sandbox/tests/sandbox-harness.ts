import axios, { type AxiosInstance } from 'axios';
import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPaystackSandbox, sandboxControlPaths, type PaystackSandbox, type PaystackSandboxOptions } from '../src';

export const SECRET_KEY = 'sk_test_sandbox_harness_secret';

export interface RunningSandbox {
  sandbox: PaystackSandbox;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** origin + mount path: what the service would use as PAYSTACK_BASE_URL. */
  baseUrl: string;
  /** Sends the right Bearer key; never throws on status and never follows redirects. */
  api: AxiosInstance;
  /** No credentials; for the browser-facing checkout routes and auth tests. */
  http: AxiosInstance;
  stop(): Promise<void>;
}

export interface StartSandboxOptions extends Partial<PaystackSandboxOptions> {
  mountPath?: string;
  /** Extra routes on the same app, e.g. a merchant callback page for the browser test. */
  addRoutes?: (app: express.Express) => void;
}

export function listenOnEphemeralPort(server: http.Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    });
  });
}

export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Node 20's global agent keeps connections alive; without this close() waits for them.
    server.closeAllConnections();
  });
}

export async function startSandbox(options: StartSandboxOptions = {}): Promise<RunningSandbox> {
  const { mountPath = '/sandbox/paystack', addRoutes, ...sandboxOptions } = options;
  const sandbox = await createPaystackSandbox({ secretKey: SECRET_KEY, ...sandboxOptions });
  const app = express();
  app.use(mountPath, sandbox.router);
  addRoutes?.(app);
  const server = http.createServer(app);
  const origin = await listenOnEphemeralPort(server);
  const baseUrl = `${origin}${mountPath === '/' ? '' : mountPath}`;
  const common = { baseURL: baseUrl, validateStatus: () => true, maxRedirects: 0 };
  return {
    sandbox,
    origin,
    baseUrl,
    api: axios.create({ ...common, headers: { Authorization: `Bearer ${SECRET_KEY}` } }),
    http: axios.create(common),
    stop: async () => {
      await sandbox.close();
      await closeServer(server);
    },
  };
}

export interface InitializedCharge {
  authorization_url: string;
  access_code: string;
  reference: string;
}

/** Initializes a charge with sensible defaults and fails the test if Paystack-style 200 is not returned. */
export async function initializeCharge(
  api: AxiosInstance,
  overrides: Record<string, unknown> = {},
): Promise<InitializedCharge> {
  const response = await api.post('/transaction/initialize', {
    email: 'buyer@example.com',
    amount: 500_000,
    callback_url: 'http://merchant.test/payments/callback',
    ...overrides,
  });
  if (response.status !== 200) throw new Error(`initialize failed: ${response.status} ${JSON.stringify(response.data)}`);
  return response.data.data as InitializedCharge;
}

/**
 * Initializes a charge and pays it through the sandbox's status control (no browser), so refund
 * and dispute tests start from a `success` charge. `charge.success` is sent as for a real Pay.
 */
export async function initializePaidCharge(
  api: AxiosInstance,
  overrides: Record<string, unknown> = {},
): Promise<InitializedCharge> {
  const charge = await initializeCharge(api, overrides);
  const paid = await api.post(sandboxControlPaths.transactionStatus(charge.reference), { status: 'success' });
  if (paid.status !== 200) throw new Error(`paying ${charge.reference} failed: ${paid.status} ${JSON.stringify(paid.data)}`);
  return charge;
}

export function checkoutPath(accessCode: string, action?: 'pay' | 'decline' | 'cancel'): string {
  return `/checkout/${accessCode}${action ? `/${action}` : ''}`;
}

let uniqueCounter = 0;
/** A reference no other test in this process uses. */
export function uniqueReference(prefix = 'ref'): string {
  uniqueCounter += 1;
  return `${prefix}-${process.pid}-${Date.now()}-${uniqueCounter}`;
}

/** A transfer reference as Paystack wants it (16-50 of lowercase a-z, 0-9, `-`, `_`), unique in this process. */
export function uniqueTransferReference(prefix = 'trf'): string {
  return uniqueReference(prefix.toLowerCase()).padEnd(16, '0');
}

/** Sets the balance transfers are paid from, in kobo, through the sandbox control. */
export async function setSandboxBalance(api: AxiosInstance, balanceKobo: number): Promise<void> {
  const response = await api.post(sandboxControlPaths.balance(), { balance: balanceKobo });
  if (response.status !== 200) throw new Error(`setting the balance failed: ${response.status} ${JSON.stringify(response.data)}`);
}

/** Creates (or finds) the `nuban` recipient of a ten-digit account at Guaranty Trust Bank (058) and answers its code. */
export async function createTransferRecipient(api: AxiosInstance, overrides: Record<string, unknown> = {}): Promise<string> {
  const response = await api.post('/transferrecipient', {
    type: 'nuban',
    name: 'Ada Lovelace',
    account_number: '0123456789',
    bank_code: '058',
    currency: 'NGN',
    ...overrides,
  });
  if (response.status !== 201) throw new Error(`creating a recipient failed: ${response.status} ${JSON.stringify(response.data)}`);
  return (response.data as { data: { recipient_code: string } }).data.recipient_code;
}
