import cluster from 'node:cluster';

/** What a worker tells the cluster primary before it exits because it could not start. */
export interface StartFailureMessage {
  wallet: 'start-failed';
  reason: string;
}

export function isStartFailure(message: unknown): message is StartFailureMessage {
  return typeof message === 'object' && message !== null && (message as { wallet?: unknown }).wallet === 'start-failed';
}

/**
 * A service process that cannot start prints why and exits 1. In a cluster worker the reason
 * also goes to the primary first, which logs it when it gives up (its own output is one JSON
 * line among the workers' on a shared pipe; stderr keeps the worker's own words).
 */
export function exitBecauseStartFailed(reason: string): void {
  console.error(reason);
  if (!cluster.isWorker || !process.send) {
    process.exit(1);
  }
  const message: StartFailureMessage = { wallet: 'start-failed', reason };
  try {
    process.send(message, undefined, {}, () => process.exit(1));
  } catch {
    process.exit(1); // the primary is gone
  }
}
