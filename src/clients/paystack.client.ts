import axios, { type AxiosInstance, type AxiosRequestConfig, type AxiosResponse } from 'axios';
import { z } from 'zod';
import { AppError } from '../errors/app-error';
import { failureResponse, initializeResponse, listResponse, verifyResponse, type TransactionData } from './paystack-schemas';

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

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_PAGE_SIZE = 100;
/** A Paystack answer is a few kB; anything far larger is not one. */
const MAX_RESPONSE_BYTES = 1_000_000;

/**
 * Paystack's transaction API: open a charge, ask what became of it, and list them all.
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
    const response = await this.send({ method: 'GET', url: `/transaction/verify/${encodeURIComponent(reference)}` });
    if (response.status === 400) {
      validate(response, readJson(response), failureResponse);
      return undefined;
    }
    if (response.status !== 200) throw failed(`verify answered HTTP ${response.status}`);
    const json = readJson(response);
    const { data } = validate(response, json, verifyResponse);
    if (data.reference !== reference) throw failed('verify answered for another reference');
    return toTransaction(data, (json as { data: Record<string, unknown> }).data);
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
    const response = await this.send({ method: 'GET', url: '/transaction', params });
    // A refusal here is of a query this client built: retrying it cannot help.
    if (response.status !== 200) throw failed(`list answered HTTP ${response.status}`);
    const json = readJson(response);
    const body = validate(response, json, listResponse);
    const raws = (json as { data: Record<string, unknown>[] }).data;
    return {
      transactions: body.data.map((data, i) => toTransaction(data, raws[i]!)),
      page: body.meta.page,
      pageCount: body.meta.pageCount,
      total: body.meta.total,
    };
  }

  /**
   * Every transaction matching `query`, page after page. The list is newest first, so a
   * transaction created while it pages pushes older ones onto later pages: those would come
   * twice and are given once (by reference); none is skipped. Errors as listTransactions, and a
   * failure part way ends the iteration with it: the caller must not take what it saw for all.
   */
  async *allTransactions(query: Omit<TransactionListQuery, 'page'> = {}): AsyncGenerator<VerifiedTransaction> {
    const seen = new Set<string>();
    for (let page = 1; ; page += 1) {
      const answer = await this.listTransactions({ ...query, page });
      for (const transaction of answer.transactions) {
        if (seen.has(transaction.reference)) continue;
        seen.add(transaction.reference);
        yield transaction;
      }
      if (answer.transactions.length === 0 || page >= answer.pageCount) return;
    }
  }

  /** One request; sorts out the failures every endpoint shares. Only 2xx-4xx answers come back. */
  private async send(config: AxiosRequestConfig): Promise<AxiosResponse<unknown>> {
    let response: AxiosResponse<unknown>;
    try {
      response = await this.http.request<unknown>({
        ...this.requestConfig,
        ...config,
        // axios' own timeout only watches socket inactivity; this bounds a slowly trickling answer too.
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      // No complete answer: refused, reset, timed out, cut off mid-body. Only the code is kept,
      // because an axios error holds the request config and with it the Authorization header.
      const code = axios.isAxiosError(error) ? error.code : undefined;
      throw unavailable(`no complete answer (${code ?? 'request failed'})`);
    }
    if (response.status >= 500 || response.status === 429) throw unavailable(`HTTP ${response.status}`);
    // The provider refused our key: a server misconfiguration, not something a retry fixes.
    if (response.status === 401 || response.status === 403) throw failed(`provider refused the secret key (HTTP ${response.status})`);
    return response;
  }
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

function readJson(response: AxiosResponse<unknown>): unknown {
  if (typeof response.data !== 'string') return response.data;
  try {
    return JSON.parse(response.data) as unknown;
  } catch {
    throw failed(`HTTP ${response.status} answer is not JSON`);
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
