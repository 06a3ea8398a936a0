/**
 * The bench's own HTTP calls (seeding, bursts, polling): fetch with a deadline on every request,
 * and only ever to the loopback service the bench started.
 */

export interface HttpResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  /** Wall time of the request, milliseconds. */
  ms: number;
}

export interface RequestOptions {
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** 'manual' keeps a checkout's 303 from being followed to the service's callback page. */
  redirect?: 'follow' | 'manual';
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** Refuses anything but loopback: a load generator must never aim elsewhere. */
export function assertLoopback(url: string): void {
  const host = new URL(url).hostname;
  if (!['127.0.0.1', 'localhost', '[::1]', '::1'].includes(host)) throw new Error(`refusing a non-loopback target: ${url}`);
}

export async function request<T = unknown>(method: string, url: string, options: RequestOptions = {}): Promise<HttpResponse<T>> {
  assertLoopback(url);
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let payload: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(options.body);
  }
  const started = performance.now();
  const res = await fetch(url, {
    method,
    headers,
    body: payload,
    redirect: options.redirect ?? 'follow',
    signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  let body: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') body = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: body as T, ms };
}

/** Like request, but anything other than the expected status is an error naming the call. */
export async function expectStatus<T = unknown>(expected: number, method: string, url: string, options: RequestOptions = {}): Promise<HttpResponse<T>> {
  const res = await request<T>(method, url, options);
  if (res.status !== expected) {
    const detail = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
    throw new Error(`${method} ${new URL(url).pathname}: expected ${expected}, got ${res.status} ${detail.slice(0, 300)}`);
  }
  return res;
}

/**
 * Runs fn over items with at most `limit` calls in flight (seeding and polling, where an
 * unbounded Promise.all would open thousands of sockets). Results keep the items' order.
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` until it returns a value (not undefined) or the deadline passes; bounded in time
 * and therefore in count.
 */
export async function pollUntil<T>(what: string, timeoutMs: number, intervalMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    await sleep(intervalMs);
  }
  const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
}
