import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { EndpointRow, SealedEndpointSecret } from '../db/repositories/webhook.repository';
import type { WalletCipher } from './wallet-cipher';

/** What an endpoint's sealed secret is bound to (the cipher's associated data): it opens on its own endpoint's row alone. */
export const webhookSecretBinding = (endpointId: string): string => `webhook-endpoint:${endpointId}`;

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
    const sealed = this.cipher.seal(secret, webhookSecretBinding(endpointId));
    return { secretCiphertext: sealed.ciphertext, keyId: sealed.keyId };
  }

  /**
   * The `webhook-signature` header for one attempt: the current secret's signature, and beside it
   * (space-separated, as the specification allows) the previous secret's while a rotation's grace
   * period lasts, so a receiver still holding the old secret verifies too.
   */
  signature(endpoint: EndpointRow, messageId: string, timestamp: Date, body: string, now = new Date()): string {
    const secrets = [this.cipher.open({ ciphertext: endpoint.secretCiphertext, keyId: endpoint.keyId }, webhookSecretBinding(endpoint.id))];
    const previous = this.previousSecret(endpoint, now);
    if (previous) secrets.push(previous);
    return secrets.map((secret) => new Webhook(secret).sign(messageId, timestamp, body)).join(' ');
  }

  /**
   * The rotated-out secret while its grace period lasts. The key rotation (npm run
   * wallet:rotate-key) re-seals the current secret only: one sealed under a wallet key dropped
   * since is left out (the current signature is the one that counts).
   */
  private previousSecret(endpoint: EndpointRow, now: Date): string | undefined {
    if (!endpoint.previousSecretCiphertext || !endpoint.previousKeyId || !endpoint.previousUntil || endpoint.previousUntil <= now) return undefined;
    try {
      return this.cipher.open({ ciphertext: endpoint.previousSecretCiphertext, keyId: endpoint.previousKeyId }, webhookSecretBinding(endpoint.id));
    } catch {
      return undefined;
    }
  }
}
