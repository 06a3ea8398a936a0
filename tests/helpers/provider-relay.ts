import express from 'express';
import { postWebhook } from './payment-fixtures';
import { listen, startPaystackSandbox, type RunningProvider } from './sandboxes';
import type { TestApp } from './test-app';

export interface RelayedProvider {
  /** The provider sandbox, whose webhooks go to `current` (the running test's app). */
  provider(): RunningProvider;
  /** Makes `app` the one the provider's webhooks reach (undefined: they are answered 503 and retried). */
  deliverTo(app: TestApp | undefined): void;
}

/**
 * A provider sandbox for the file whose signed webhooks reach whichever app the running test
 * started, through a relay on a real port (the app is in-process, on supertest).
 */
export function relayedProvider(): RelayedProvider {
  let current: TestApp | undefined;
  let relay: { url: string; close(): Promise<void> } | undefined;
  let provider: RunningProvider | undefined;
  beforeAll(async () => {
    const forward = express();
    forward.post('/webhook', express.raw({ type: '*/*' }), async (req, res) => {
      if (!current) return void res.status(503).end();
      const answer = await postWebhook(current, (req.body as Buffer).toString('utf8'), req.get('x-paystack-signature'));
      res.status(answer.status).end();
    });
    relay = await listen(forward);
    provider = await startPaystackSandbox(`${relay.url}/webhook`);
  });
  afterAll(async () => {
    await provider?.stop();
    await relay?.close();
  });
  afterEach(() => {
    current = undefined;
  });
  return {
    provider: () => provider!,
    deliverTo: (app) => {
      current = app;
    },
  };
}

/** A sandbox-only control of the provider (README of packages/paystack-sandbox); its `data`. */
export async function providerControl(provider: RunningProvider, path: string, body: unknown = {}): Promise<Record<string, unknown>> {
  const res = await fetch(`${provider.url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${provider.secretKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { data: Record<string, unknown> };
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json.data;
}

