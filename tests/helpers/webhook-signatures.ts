import { Webhook } from 'standardwebhooks';
import type { ReceivedRequest } from './fake-server';

/** Whether a received webhook verifies with `secret`, as a receiver checks it: the Standard Webhooks library, over the raw body. */
export function verifies(request: ReceivedRequest, secret: string): boolean {
  try {
    new Webhook(secret).verify(request.body.toString('utf8'), request.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}
