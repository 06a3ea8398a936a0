import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { EndpointRow, SealedEndpointSecret } from '../db/repositories/webhook.repository';
import type { WalletCipher } from './wallet-cipher';

/**
 * Webhook endpoints' signing secrets (Standard Webhooks: `whsec_` and base64 of 24 random bytes),
 * shown to the admin once and stored sealed by the wallet cipher, bound to the endpoint's id (a
 * ciphertext copied onto another endpoint does not open). Signing is the `standardwebhooks`
 * package's: v1, HMAC-SHA256 of "id.timestamp.body".
 */
export class WebhookSecrets {
  constructor(private readonly cipher: WalletCipher) {}

  generate(): string {
    return `whsec_${crypto.randomBytes(24).toString('base64')}`;
  }

  seal(secret: string, endpointId: string): SealedEndpointSecret {
    const sealed = this.cipher.seal(secret, aad(endpointId));
    return { secretCiphertext: sealed.ciphertext, keyId: sealed.keyId };
  }

  /**
   * The `webhook-signature` header for one attempt: the current secret's signature, and beside it
   * (space-separated, as the specification allows) the previous secret's while a rotation's grace
   * period lasts, so a receiver still holding the old secret verifies too.
   */
  signature(endpoint: EndpointRow, messageId: string, timestamp: Date, body: string, now = new Date()): string {
    const secrets = [this.cipher.open({ ciphertext: endpoint.secretCiphertext, keyId: endpoint.keyId }, aad(endpoint.id))];
    if (endpoint.previousSecretCiphertext && endpoint.previousKeyId && endpoint.previousUntil && endpoint.previousUntil > now) {
      secrets.push(this.cipher.open({ ciphertext: endpoint.previousSecretCiphertext, keyId: endpoint.previousKeyId }, aad(endpoint.id)));
    }
    return secrets.map((secret) => new Webhook(secret).sign(messageId, timestamp, body)).join(' ');
  }
}

function aad(endpointId: string): string {
  return `webhook-endpoint:${endpointId}`;
}
