import { StrKey } from '@stellar/stellar-sdk';

const SEED_SHAPE = /S[A-Z2-7]{55}/g;

/**
 * Every Stellar secret seed in `text`. The shape alone (`S` and 55 base32 characters) also matches
 * inside base64 (an envelope's XDR has long runs of uppercase letters): a run counts only when it
 * is a real seed, version byte and CRC16 checksum included, which random text passes about once in
 * 65,536 tries at best.
 */
export function stellarSeedsIn(text: string): string[] {
  const found: string[] = [];
  for (let i = 0; i + 56 <= text.length; i++) {
    SEED_SHAPE.lastIndex = i;
    const match = SEED_SHAPE.exec(text);
    if (!match) break;
    if (StrKey.isValidEd25519SecretSeed(match[0])) found.push(match[0]);
    i = match.index; // the loop's i++ moves one past it: overlapping runs are tried too
  }
  return found;
}
