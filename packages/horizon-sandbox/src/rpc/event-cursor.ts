/**
 * stellar-rpc's event position (protocol.Cursor): ledger, transaction index (1-based; 0 for the
 * fee events charged before any transaction applies), operation index (0-based) and the event's
 * index within them. Written as the TOID of the first three, 19 digits, a dash, and the event index,
 * 10 digits: `0000004294971392-0000000000`. An event's id is its cursor.
 */
export interface EventCursor {
  ledger: number;
  tx: number;
  op: number;
  event: number;
}

/** toid's masks: 20 bits of transaction order, 12 of operation order. */
const TRANSACTION_MASK = 0xfffff;
const OPERATION_MASK = 0xfff;
const MAX_UINT32 = 0xffffffff;

export function formatCursor({ ledger, tx, op, event }: EventCursor): string {
  const toid = (BigInt(ledger) << 32n) | (BigInt(tx) << 12n) | BigInt(op);
  return `${toid.toString().padStart(19, '0')}-${event.toString().padStart(10, '0')}`;
}

/** protocol.ParseCursor: undefined when it is not `<toid>-<event index>`. */
export function parseCursor(text: string): EventCursor | undefined {
  const match = /^(-?\d+)-(\d+)$/.exec(text);
  if (!match) return undefined;
  const toid = BigInt(match[1] as string);
  const event = Number(match[2]);
  if (toid < 0n || toid >= 1n << 63n || event > MAX_UINT32) return undefined;
  return {
    ledger: Number(toid >> 32n),
    tx: Number((toid >> 12n) & BigInt(TRANSACTION_MASK)),
    op: Number(toid & BigInt(OPERATION_MASK)),
    event,
  };
}

export function compareCursors(a: EventCursor, b: EventCursor): number {
  return a.ledger - b.ledger || a.tx - b.tx || a.op - b.op || a.event - b.event;
}

/** Where a page goes on from: the position right after `cursor` (stellar-rpc increments the event index, a uint32). */
export const nextCursor = (cursor: EventCursor): EventCursor => ({ ...cursor, event: (cursor.event + 1) >>> 0 });

/** The last position a ledger can hold: the cursor stellar-rpc answers when a search ends short of its limit. */
export const endOfLedger = (ledger: number): EventCursor => ({
  ledger,
  tx: TRANSACTION_MASK,
  op: OPERATION_MASK,
  event: MAX_UINT32,
});
