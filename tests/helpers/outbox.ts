import type { DatabaseHandle } from '../../src/db/client';
import { EventRepository } from '../../src/db/repositories/event.repository';
import { DeliveryQueue } from '../../src/events/delivery-queue';
import { EventOutbox } from '../../src/events/event-outbox';
import { createLogger } from '../../src/logger';

/** The service's outbox on the test's database, for tests that build repositories by hand (no endpoint: nothing is enqueued). */
export function outboxOf(database: DatabaseHandle): EventOutbox {
  const queue = new DeliveryQueue({ url: database.url, heartbeatSeconds: 10, concurrency: 1, monitorSeconds: 10 }, createLogger({ level: 'silent' }));
  return new EventOutbox({ db: database.db, events: new EventRepository(database.db), queue });
}
