import { z } from 'zod';
import type { ClosedLedger } from '../../ledger-history';
import { classicEvents, type ClassicEvent } from '../classic-events';
import type { RpcDependencies } from '../context';
import { compareCursors, endOfLedger, formatCursor, nextCursor, parseCursor, type EventCursor } from '../event-cursor';
import { eventFilterSchema, matchesAny, parseEventFilters, type EventFilter } from '../event-filters';
import { INVALID_REQUEST, RpcError, invalidParams } from '../json-rpc';
import { parseParams, xdrFormat } from '../params';
import { ledgerRange, retentionFields } from '../retention';

/** stellar-rpc's defaults: default-events-limit, max-events-limit, and the ledgers one request scans. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 10_000;
const LEDGER_SCAN_LIMIT = 10_000;

const uint32 = z.number().int().min(0).max(0xffffffff);

const schema = z.object({
  startLedger: uint32.optional(),
  endLedger: uint32.optional(),
  filters: z.array(eventFilterSchema).nullish(),
  pagination: z
    .object({
      cursor: z
        .string()
        .refine((text) => parseCursor(text) !== undefined, { error: 'invalid event id' })
        .optional(),
      limit: uint32.optional(),
    })
    .nullish(),
  xdrFormat,
});

interface EventsRequest {
  /** The first position to answer (inclusive). */
  start: EventCursor;
  /** The first ledger not to scan. */
  endLedger: number;
  limit: number;
  filters: EventFilter[];
}

/**
 * getEvents: the CAP-67 events of the classic operations the sandbox applies (fees, create_account,
 * payments, account_merge), as stellar-rpc answers them with core's EMIT_CLASSIC_EVENTS on, from
 * `startLedger` or after `pagination.cursor`, over at most 10000 ledgers up to the read side's
 * latest (a lagging read side hides what it has not ingested). A start outside the retention window
 * is -32600, as stellar-rpc refuses it.
 */
export function getEvents(params: unknown, { readSides, retentionLedgers, networkPassphrase }: RpcDependencies) {
  const view = readSides.view();
  const range = ledgerRange(view, retentionLedgers);
  const request = eventsRequest(parseParams(params, schema), range.latest.sequence);
  const { start, endLedger, limit, filters } = request;
  if (start.ledger < range.oldest.sequence || start.ledger > range.latest.sequence) {
    throw new RpcError(
      INVALID_REQUEST,
      `startLedger must be within the ledger range: ${range.oldest.sequence} - ${range.latest.sequence}`,
    );
  }

  const found: { event: ClassicEvent; closedAt: number }[] = [];
  scan: for (let sequence = start.ledger; sequence < endLedger; sequence++) {
    const ledger = view.closedLedger(sequence);
    if (!ledger) continue;
    for (const event of eventsOf(ledger, networkPassphrase)) {
      if (compareCursors(event.cursor, start) < 0 || !matchesAny(filters, event)) continue;
      found.push({ event, closedAt: ledger.header.closedAt });
      if (found.length >= limit) break scan;
    }
  }

  const events = found.map(({ event, closedAt }) => eventInfo(event, closedAt));
  // a full page goes on after its last event; a short one after the whole window it searched
  const cursor = events.length === limit ? (events.at(-1)?.id ?? '') : formatCursor(endOfLedger(endLedger - 1));
  return { events, cursor, ...retentionFields(range) };
}

/** The request checked as GetEventsRequest.Valid checks it, with the window the handler then scans. */
function eventsRequest(input: z.infer<typeof schema>, latestLedger: number): EventsRequest {
  const cursorText = input.pagination?.cursor;
  if (cursorText !== undefined) {
    if (input.startLedger || input.endLedger) throw invalidParams('ledger ranges and cursor cannot both be set');
  } else if (!input.startLedger) {
    throw invalidParams('startLedger must be positive');
  }
  const requestedLimit = input.pagination?.limit ?? 0;
  if (requestedLimit > MAX_LIMIT) throw invalidParams(`limit must not exceed ${MAX_LIMIT}`);
  const filters = parseEventFilters(input.filters ?? []);

  const cursor = cursorText === undefined ? undefined : parseCursor(cursorText);
  const start = cursor ? nextCursor(cursor) : { ledger: input.startLedger ?? 0, tx: 0, op: 0, event: 0 };
  let endLedger = Math.min(start.ledger + LEDGER_SCAN_LIMIT, latestLedger + 1);
  if (input.endLedger) endLedger = Math.min(endLedger, input.endLedger);
  return { start, endLedger, limit: requestedLimit > 0 ? requestedLimit : DEFAULT_LIMIT, filters };
}

/** A ledger's events, derived once per ledger: history never changes, only the read view's reach. */
const derived = new WeakMap<object, ClassicEvent[]>();

function eventsOf(ledger: ClosedLedger, networkPassphrase: string): ClassicEvent[] {
  if (ledger.transactions.length === 0) return [];
  // keyed by the ledger's transaction list, which the history keeps as one array per ledger
  let events = derived.get(ledger.transactions);
  if (!events) derived.set(ledger.transactions, (events = classicEvents(ledger, networkPassphrase)));
  return events;
}

/** stellar-rpc's EventInfo (base64 XDR); ledgerClosedAt is RFC 3339 without fractions. */
function eventInfo(event: ClassicEvent, closedAt: number) {
  return {
    type: 'contract',
    ledger: event.cursor.ledger,
    ledgerClosedAt: new Date(closedAt * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    contractId: event.contractId,
    id: formatCursor(event.cursor),
    operationIndex: event.cursor.op,
    transactionIndex: event.cursor.tx,
    txHash: event.txHash,
    inSuccessfulContractCall: event.successful,
    topic: event.topic,
    value: event.value,
  };
}
