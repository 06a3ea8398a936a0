import axios, { type AxiosInstance, type AxiosRequestConfig, type AxiosResponse } from 'axios';
import { z } from 'zod';
import { AppError } from '../errors/app-error';
import {
  balanceResponse,
  bankListResponse,
  failureResponse,
  initializeResponse,
  listResponse,
  recipientResponse,
  refusalResponse,
  resolveAccountResponse,
  transferListResponse,
  transferResponse,
  verifyResponse,
  type TransactionData,
  type TransferData,
} from './paystack-schemas';

export interface PaystackClientOptions {
  /** e.g. `https://api.paystack.co`, or the sandbox's `http://localhost:3000/sandbox/paystack`. */
  baseUrl: string;
  secretKey: string;
  /** Whole-request deadline, connection to last byte. Default 10000. */
  timeoutMs?: number;
}

export interface InitializeInput {
  email: string;
  amountKobo: bigint;
  reference: string;
  callbackUrl: string;
  metadata?: Record<string, unknown>;
}

/** The provider's `data` object, passed through with any extra fields it carries. */
export interface InitializedTransaction {
  authorization_url: string;
  access_code: string;
  reference: string;
  [k: string]: unknown;
}

export interface VerifiedTransaction {
  status: 'success' | 'failed' | 'abandoned' | string;
  reference: string;
  amountKobo: bigint;
  currency: string;
  paidAt: string | null;
  /** `String(data.customer.id)` */
  customerId: string;
  customerEmail: string;
  /** The provider's `data` object as received. */
  raw: Record<string, unknown>;
}

/** Which page of the provider's transactions, and which of them (`GET /transaction`). */
export interface TransactionListQuery {
  /** From 1. Default 1. */
  page?: number;
  /** Default 100. The provider may keep fewer per page: the answer says how many it kept. */
  perPage?: number;
  /** Only this status (`success`, `failed`, `abandoned`, `reversed`...). */
  status?: string;
  /** Only transactions created at or after this time. */
  from?: Date;
  /** Only transactions created at or before this time. */
  to?: Date;
}

/** One page of the provider's transactions, newest first. */
export interface TransactionPage {
  /** Each in the shape verify gives it. */
  transactions: VerifiedTransaction[];
  page: number;
  /** How many pages the query has, at the provider's page size. */
  pageCount: number;
  /** How many transactions match the query, on every page. */
  total: number;
}

/** Which page of the provider's transfers (`GET /transfer`). */
export interface TransferListQuery {
  /** From 1. Default 1. */
  page?: number;
  /** Default 100. The provider may keep fewer per page: the answer says how many it kept. */
  perPage?: number;
  /** Only this status (`pending`, `otp`, `success`, `failed`, `reversed`...). */
  status?: string;
}

/** One page of the provider's transfers, newest first. */
export interface TransferPage {
  /** Each in the shape verifyTransfer gives it. */
  transfers: ProviderTransfer[];
  page: number;
  /** How many pages the query has, at the provider's page size. */
  pageCount: number;
  /** How many transfers match the query, on every page. */
  total: number;
}

export interface Bank {
  name: string;
  /** What `resolveAccount` and `createRecipient` take as `bankCode`. */
  code: string;
}

export interface ResolvedAccount {
  accountNumber: string;
  /** The name the bank holds for the account. */
  accountName: string;
}

export interface RecipientInput {
  /** The name shown for the recipient at the provider (usually the resolved account name). */
  name: string;
  accountNumber: string;
  bankCode: string;
}

/** A `nuban` recipient: the provider answers the same one for the same account and bank. */
export interface TransferRecipient {
  /** `RCP_...`: what `initiateTransfer` pays to. */
  recipientCode: string;
  accountNumber: string;
  accountName: string | null;
  bankCode: string;
  bankName: string;
}

export interface TransferInput {
  amountKobo: bigint;
  /** A `recipientCode`. */
  recipient: string;
  /** 16-50 of lowercase a-z, 0-9, `-`, `_`; one transfer per reference, ever. */
  reference: string;
  reason: string;
}

/**
 * A transfer as the provider knows it. `status`: `pending`, `otp`, `received` are not final;
 * `success`, `failed`, `reversed`, `abandoned`, `blocked`, `rejected` are, except that `success`
 * may later become `reversed`. An unknown status is to be treated as not final.
 */
export interface ProviderTransfer {
  reference: string;
  /** `TRF_...`: what `finalizeTransfer` takes. */
  transferCode: string;
  amountKobo: bigint;
  status: string;
  reason: string | null;
  /** The provider's `data` object as received. */
  raw: Record<string, unknown>;
}

/** Why the provider said no to a transfer, as far as the caller must tell refusals apart. */
export type TransferRefusalReason =
  /** A transfer with this reference exists already: verify it, it may be this one. */
  | 'reference_used'
  /** The provider's balance is too low; nothing was created: the same reference may be tried later. */
  | 'balance_not_enough'
  /** Any other refusal (a bad recipient or amount, an OTP not awaited or wrong). */
  | 'other';

/**
 * What became of a call that moves money. `unclear` means the request may or may not have taken
 * effect (no answer, a timeout, a reset, a 5xx or 429, an unreadable 2xx): the caller must ask
 * `verifyTransfer(reference)`, and must never try again with a new reference.
 */
export type TransferCallResult =
  | { outcome: 'accepted'; transfer: ProviderTransfer }
  | { outcome: 'refused'; reason: TransferRefusalReason; message: string }
  | { outcome: 'unclear'; cause: string };

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_PAGE_SIZE = 100;
/** A Paystack answer is a few kB; anything far larger is not one. */
const MAX_RESPONSE_BYTES = 1_000_000;

/**
 * Paystack's transaction API (open a charge, ask what became of it, list them all) and its
 * Transfers API (banks, account names, recipients, payouts from the balance, the list of them).
 *
 * Every answer is validated before anything is read from it. Failures become AppErrors in the
 * service's terms: `UPSTREAM_UNAVAILABLE` when retrying later can help (no answer, timeout,
 * 429, 5xx), `UPSTREAM_FAILED` when it cannot (bad key, an answer of the wrong shape). The
 * provider's own status and message never reach the caller, and the secret key never appears in
 * an error; a short, secret-free diagnosis is kept in the error's `cause` for the caller's log.
 */
export class PaystackClient {
  private readonly http: AxiosInstance;
  private readonly requestConfig: AxiosRequestConfig;
  private readonly timeoutMs: number;

  constructor(options: PaystackClientOptions, http?: AxiosInstance) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // Applied per request too, so an injected instance (custom agent, interceptors) behaves the same.
    this.requestConfig = {
      baseURL: options.baseUrl.replace(/\/+$/, ''),
      headers: { Authorization: `Bearer ${options.secretKey}`, Accept: 'application/json' },
      timeout: this.timeoutMs,
      // Statuses are classified below; axios must not throw errors that would carry the request config.
      validateStatus: () => true,
      // The raw text is parsed here, so a non-JSON answer is a validation failure, not a silent string.
      responseType: 'text',
      transformResponse: [(data: unknown) => data],
      // An API endpoint that redirects is misconfigured; following it could send the key elsewhere.
      maxRedirects: 0,
      maxContentLength: MAX_RESPONSE_BYTES,
    };
    this.http = http ?? axios.create(this.requestConfig);
  }

  /**
   * Opens a charge for `amountKobo` and returns the checkout link. Any refusal (duplicate
   * reference included) is `UPSTREAM_FAILED`: the service chose the inputs, so retrying the same
   * call cannot help.
   */
  async initialize(input: InitializeInput): Promise<InitializedTransaction> {
    const response = await this.send({
      method: 'POST',
      url: '/transaction/initialize',
      data: {
        email: input.email,
        amount: koboToJsonNumber(input.amountKobo),
        currency: 'NGN',
        reference: input.reference,
        callback_url: input.callbackUrl,
        ...(input.metadata === undefined ? {} : { metadata: input.metadata }),
      },
    });
    if (response.status !== 200) throw failed(`initialize answered HTTP ${response.status}`);
    const body = validate(response, readJson(response), initializeResponse);
    if (body.data.reference !== input.reference) throw failed('initialize answered for another reference');
    return body.data;
  }

  /**
   * What the provider knows about `reference`, or undefined when it does not know it. Only
   * `status === 'success'` with the expected amount and currency means the money arrived; that
   * judgement is the caller's.
   */
  async verify(reference: string): Promise<VerifiedTransaction | undefined> {
    return this.findByReference('verify', `/transaction/verify/${encodeURIComponent(reference)}`, reference, verifyResponse, toTransaction);
  }

  /**
   * One page of the provider's transactions (every integration on the account, not only this
   * service's), newest first. A page past the last has no transactions.
   */
  async listTransactions(query: TransactionListQuery = {}): Promise<TransactionPage> {
    const params: Record<string, string> = { page: String(query.page ?? 1), perPage: String(query.perPage ?? DEFAULT_PAGE_SIZE) };
    if (query.status !== undefined) params.status = query.status;
    if (query.from !== undefined) params.from = query.from.toISOString();
    if (query.to !== undefined) params.to = query.to.toISOString();
    const { items, ...page } = await this.listPage('list', '/transaction', params, listResponse, toTransaction);
    return { transactions: items, ...page };
  }

  /**
   * Every transaction matching `query`, page after page. The list is newest first, so a
   * transaction created while it pages pushes older ones onto later pages: those would come
   * twice and are given once (by reference); none is skipped. Errors as listTransactions, and a
   * failure part way ends the iteration with it: the caller must not take what it saw for all.
   */
  async *allTransactions(query: Omit<TransactionListQuery, 'page'> = {}): AsyncGenerator<VerifiedTransaction> {
    yield* walkPages(
      async (page) => {
        const answer = await this.listTransactions({ ...query, page });
        return { items: answer.transactions, pageCount: answer.pageCount };
      },
      (transaction) => transaction.reference,
    );
  }

  /**
   * One page of the provider's transfers (every integration on the account, not only this
   * service's), newest first, each as verifyTransfer gives it. A page past the last has none.
   */
  async listTransfers(query: TransferListQuery = {}): Promise<TransferPage> {
    const params: Record<string, string> = { page: String(query.page ?? 1), perPage: String(query.perPage ?? DEFAULT_PAGE_SIZE) };
    if (query.status !== undefined) params.status = query.status;
    const { items, ...page } = await this.listPage('transfer list', '/transfer', params, transferListResponse, toTransfer);
    return { transfers: items, ...page };
  }

  /**
   * Every transfer matching `query`, page after page, as allTransactions walks transactions: one
   * pushed onto a later page by a newer one comes once. Told apart by transfer code, not by
   * reference: two transfers under one reference (which the provider should never hold) both come,
   * so the audit can see them. A failure part way ends the iteration with it.
   */
  async *allTransfers(query: Omit<TransferListQuery, 'page'> = {}): AsyncGenerator<ProviderTransfer> {
    yield* walkPages(
      async (page) => {
        const answer = await this.listTransfers({ ...query, page });
        return { items: answer.transfers, pageCount: answer.pageCount };
      },
      (transfer) => transfer.transferCode,
    );
  }

  /** The banks the provider pays out to (`GET /bank?currency=NGN`), active ones only. */
  async listBanks(): Promise<Bank[]> {
    const response = await this.send({ method: 'GET', url: '/bank', params: { currency: 'NGN' } });
    if (response.status !== 200) throw failed(`bank list answered HTTP ${response.status}`);
    const body = validate(response, readJson(response), bankListResponse);
    return body.data.filter((bank) => bank.active !== false).map((bank) => ({ name: bank.name, code: bank.code }));
  }

  /** The account's name at the bank, or undefined when the provider cannot resolve it (wrong number or bank). */
  async resolveAccount(accountNumber: string, bankCode: string): Promise<ResolvedAccount | undefined> {
    const response = await this.send({
      method: 'GET',
      url: '/bank/resolve',
      params: { account_number: accountNumber, bank_code: bankCode },
    });
    if (response.status === 400 || response.status === 422) {
      validate(response, readJson(response), refusalResponse);
      return undefined;
    }
    if (response.status !== 200) throw failed(`resolve answered HTTP ${response.status}`);
    const { data } = validate(response, readJson(response), resolveAccountResponse);
    return { accountNumber: data.account_number, accountName: data.account_name };
  }

  /**
   * The provider's `nuban` recipient for the account (the same one if it exists already). A
   * refusal is `UPSTREAM_FAILED`: resolve the account first, so it is not expected.
   */
  async createRecipient(input: RecipientInput): Promise<TransferRecipient> {
    const response = await this.send({
      method: 'POST',
      url: '/transferrecipient',
      data: { type: 'nuban', name: input.name, account_number: input.accountNumber, bank_code: input.bankCode, currency: 'NGN' },
    });
    if (response.status !== 200 && response.status !== 201) throw failed(`create recipient answered HTTP ${response.status}`);
    const { data } = validate(response, readJson(response), recipientResponse);
    return {
      recipientCode: data.recipient_code,
      accountNumber: data.details.account_number,
      accountName: data.details.account_name ?? null,
      bankCode: data.details.bank_code,
      bankName: data.details.bank_name,
    };
  }

  /**
   * Asks the provider to pay `amountKobo` from its balance to `recipient`, under `reference`.
   * Never throws for what the provider did or may have done: see `TransferCallResult`. Only a
   * refused key (`UPSTREAM_FAILED`) and an amount a JSON number cannot carry (`VALIDATION`,
   * before any call) throw. Not retried here: an unclear answer is settled by verifying the
   * reference, and a retry is the same reference, which the provider refuses as `reference_used`
   * once the first went through.
   */
  async initiateTransfer(input: TransferInput): Promise<TransferCallResult> {
    const amount = koboToJsonNumber(input.amountKobo);
    return this.transferCall(
      { method: 'POST', url: '/transfer', data: { source: 'balance', amount, recipient: input.recipient, reference: input.reference, reason: input.reason } },
      input.reference,
    );
  }

  /** Gives the OTP a transfer in `otp` waits for. Results as `initiateTransfer`; a wrong OTP is `refused`. */
  async finalizeTransfer(transferCode: string, otp: string): Promise<TransferCallResult> {
    return this.transferCall({ method: 'POST', url: '/transfer/finalize_transfer', data: { transfer_code: transferCode, otp } });
  }

  /** What the provider knows of the transfer with `reference`, or undefined when there is none. */
  async verifyTransfer(reference: string): Promise<ProviderTransfer | undefined> {
    return this.findByReference('transfer verify', `/transfer/verify/${encodeURIComponent(reference)}`, reference, transferResponse, toTransfer);
  }

  /**
   * One record by its reference, or undefined when the provider does not know it. Paystack says
   * "not found" as a 400 on /transaction/verify and its sandbox as a 404 on /transfer/verify: both
   * are taken, but only in Paystack's `{status: false}` shape (a proxy's 404 page is a failure). A
   * reference that cannot be shown absent could never be tried again, so this must not throw for it.
   */
  private async findByReference<S extends z.ZodType<{ data: { reference: string } }>, R>(
    what: string,
    url: string,
    reference: string,
    schema: S,
    map: (data: z.output<S>['data'], raw: Record<string, unknown>) => R,
  ): Promise<R | undefined> {
    const response = await this.send({ method: 'GET', url });
    if (response.status === 400 || response.status === 404) {
      validate(response, readJson(response), failureResponse);
      return undefined;
    }
    if (response.status !== 200) throw failed(`${what} answered HTTP ${response.status}`);
    const json = readJson(response);
    const { data } = validate(response, json, schema);
    if (data.reference !== reference) throw failed(`${what} answered for another reference`);
    return map(data, rawData(json));
  }

  /** One page of a list (`GET /transaction`, `GET /transfer`), each item mapped with its `data` as received. */
  private async listPage<S extends z.ZodType<{ data: unknown[]; meta: { total: number; page: number; pageCount: number } }>, R>(
    what: string,
    url: string,
    params: Record<string, string>,
    schema: S,
    map: (data: z.output<S>['data'][number], raw: Record<string, unknown>) => R,
  ): Promise<{ items: R[]; page: number; pageCount: number; total: number }> {
    const response = await this.send({ method: 'GET', url, params });
    // A refusal here is of a query this client built: retrying it cannot help.
    if (response.status !== 200) throw failed(`${what} answered HTTP ${response.status}`);
    const json = readJson(response);
    const body = validate(response, json, schema);
    const raws = (json as { data: Record<string, unknown>[] }).data;
    return {
      items: body.data.map((data, i) => map(data, raws[i]!)),
      page: body.meta.page,
      pageCount: body.meta.pageCount,
      total: body.meta.total,
    };
  }

  /** The provider's NGN balance in kobo: what transfers can still pay out. */
  async balance(): Promise<bigint> {
    const response = await this.send({ method: 'GET', url: '/balance' });
    if (response.status !== 200) throw failed(`balance answered HTTP ${response.status}`);
    const { data } = validate(response, readJson(response), balanceResponse);
    const naira = data.find((entry) => entry.currency === 'NGN');
    if (!naira) throw failed('balance has no NGN entry');
    return naira.balance;
  }

  /** A call that may move money: every answer becomes a result, none an exception (see TransferCallResult). */
  private async transferCall(config: AxiosRequestConfig, expectedReference?: string): Promise<TransferCallResult> {
    const exchanged = await this.exchange(config);
    if ('unclear' in exchanged) return { outcome: 'unclear', cause: exchanged.unclear };
    const { response } = exchanged;
    if (response.status >= 500 || response.status === 429) return { outcome: 'unclear', cause: `HTTP ${response.status}` };
    refuseBadKey(response);
    const json = parseJson(response.data);
    if (response.status >= 400) {
      const refusal = refusalResponse.safeParse(json);
      // A 4xx not in Paystack's shape came from something in front of it (a proxy): the call may not have reached it.
      if (!refusal.success) return { outcome: 'unclear', cause: `HTTP ${response.status} answer is not a Paystack refusal` };
      return { outcome: 'refused', reason: refusalReason(refusal.data.message), message: refusal.data.message };
    }
    const parsed = transferResponse.safeParse(json);
    // Something was accepted but cannot be read: only verify can say what.
    if (!parsed.success) return { outcome: 'unclear', cause: `HTTP ${response.status} answer has an unexpected shape` };
    if (expectedReference !== undefined && parsed.data.data.reference !== expectedReference) {
      return { outcome: 'unclear', cause: 'answer names another reference' };
    }
    return { outcome: 'accepted', transfer: toTransfer(parsed.data.data, rawData(json)) };
  }

  /** One request; sorts out the failures every endpoint shares. Only 2xx-4xx answers come back. */
  private async send(config: AxiosRequestConfig): Promise<AxiosResponse<unknown>> {
    const exchanged = await this.exchange(config);
    if ('unclear' in exchanged) throw unavailable(exchanged.unclear);
    const { response } = exchanged;
    if (response.status >= 500 || response.status === 429) throw unavailable(`HTTP ${response.status}`);
    refuseBadKey(response);
    return response;
  }

  /** One request and its answer, or why there is no complete answer. */
  private async exchange(config: AxiosRequestConfig): Promise<{ response: AxiosResponse<unknown> } | { unclear: string }> {
    try {
      const response = await this.http.request<unknown>({
        ...this.requestConfig,
        ...config,
        // axios' own timeout only watches socket inactivity; this bounds a slowly trickling answer too.
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      return { response };
    } catch (error) {
      // No complete answer: refused, reset, timed out, cut off mid-body. Only the code is kept,
      // because an axios error holds the request config and with it the Authorization header.
      const code = axios.isAxiosError(error) ? error.code : undefined;
      return { unclear: `no complete answer (${code ?? 'request failed'})` };
    }
  }
}

/**
 * Every item of a newest-first list, page after page until a page is empty or the last. An item
 * created while it pages pushes older ones onto later pages: those would come twice and are given
 * once (by `keyOf`); none is skipped.
 */
async function* walkPages<T>(read: (page: number) => Promise<{ items: T[]; pageCount: number }>, keyOf: (item: T) => string): AsyncGenerator<T> {
  const seen = new Set<string>();
  for (let page = 1; ; page += 1) {
    const answer = await read(page);
    for (const item of answer.items) {
      const key = keyOf(item);
      if (seen.has(key)) continue;
      seen.add(key);
      yield item;
    }
    if (answer.items.length === 0 || page >= answer.pageCount) return;
  }
}

/** The provider refused our key: a server misconfiguration, not something a retry fixes. */
function refuseBadKey(response: AxiosResponse<unknown>): void {
  if (response.status === 401 || response.status === 403) throw failed(`provider refused the secret key (HTTP ${response.status})`);
}

/** Paystack's words for the refusals a payout must tell apart. */
function refusalReason(message: string): TransferRefusalReason {
  if (/reference has already been used/i.test(message)) return 'reference_used';
  if (/balance is not enough/i.test(message)) return 'balance_not_enough';
  return 'other';
}

function toTransfer(data: TransferData, raw: Record<string, unknown>): ProviderTransfer {
  return {
    reference: data.reference,
    transferCode: data.transfer_code,
    amountKobo: data.amount,
    status: data.status,
    reason: data.reason ?? null,
    raw,
  };
}

function toTransaction(data: TransactionData, raw: Record<string, unknown>): VerifiedTransaction {
  return {
    status: data.status,
    reference: data.reference,
    amountKobo: data.amount,
    currency: data.currency,
    paidAt: data.paid_at ?? null,
    customerId: String(data.customer.id),
    customerEmail: data.customer.email,
    // The data as received (amount still a JSON number), fit to store as the provider payload.
    raw,
  };
}

/** Paystack takes kobo as a JSON integer; refuse anything a double cannot hold exactly. */
function koboToJsonNumber(amountKobo: bigint): number {
  if (amountKobo <= 0n || amountKobo > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new AppError('VALIDATION', 'Amount is out of range for the payment provider');
  }
  return Number(amountKobo);
}

/** The answer's `data` as received (amounts still JSON numbers), to store as the provider's payload. */
function rawData(json: unknown): Record<string, unknown> {
  return (json as { data: Record<string, unknown> }).data;
}

function readJson(response: AxiosResponse<unknown>): unknown {
  const json = parseJson(response.data);
  if (json === NOT_JSON) throw failed(`HTTP ${response.status} answer is not JSON`);
  return json;
}

const NOT_JSON = Symbol('not JSON');

function parseJson(data: unknown): unknown {
  if (typeof data !== 'string') return data;
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return NOT_JSON;
  }
}

function validate<T extends z.ZodType>(response: AxiosResponse<unknown>, json: unknown, schema: T): z.output<T> {
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const where = parsed.error.issues.map((issue) => issue.path.join('.') || '(root)').join(', ');
    throw failed(`HTTP ${response.status} answer has an unexpected shape at ${where}`);
  }
  return parsed.data;
}

function unavailable(cause: string): AppError {
  return withCause(new AppError('UPSTREAM_UNAVAILABLE', 'Payment provider unavailable, try again later'), cause);
}

function failed(cause: string): AppError {
  return withCause(new AppError('UPSTREAM_FAILED', 'Payment provider error'), cause);
}

function withCause(error: AppError, cause: string): AppError {
  error.cause = `Paystack: ${cause}`;
  return error;
}
