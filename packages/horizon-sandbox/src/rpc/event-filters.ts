import { StrKey, xdr } from '@stellar/stellar-sdk';
import { z } from 'zod';
import type { ClassicEvent } from './classic-events';
import { invalidParams } from './json-rpc';

/** stellar-rpc's limits (protocol.MaxFiltersLimit and the rest). */
const MAX_FILTERS = 5;
const MAX_CONTRACT_IDS = 5;
const MAX_TOPICS = 5;
const MAX_SEGMENTS = 4;
const ONE = '*';
const ZERO_OR_MORE = '**';

/** A filter as JSON brings it: `type` is one string, comma-separated ("contract", "system,contract"). */
export const eventFilterSchema = z.object({
  type: z.string().optional(),
  contractIds: z.array(z.string()).optional(),
  topics: z.array(z.array(z.string())).optional(),
});

export type RawEventFilter = z.infer<typeof eventFilterSchema>;

/** A topic segment: a wildcard, or an ScVal kept as canonical base64 so it compares with an event's topic. */
type Segment = { wildcard: typeof ONE | typeof ZERO_OR_MORE } | { value: string };

export interface EventFilter {
  types: Set<string>;
  contractIds: Set<string>;
  topics: Segment[][];
}

/**
 * The filters checked as stellar-rpc's GetEventsRequest.Valid checks them, with its messages
 * ("filter 1 invalid: topic 2 invalid: ..."). Any refusal is -32602.
 */
export function parseEventFilters(raw: readonly RawEventFilter[]): EventFilter[] {
  if (raw.length > MAX_FILTERS) throw invalidParams(`maximum ${MAX_FILTERS} filters per request`);
  return raw.map((filter, index) => {
    try {
      return parseFilter(filter);
    } catch (error) {
      throw invalidParams(`filter ${index + 1} invalid: ${(error as Error).message}`);
    }
  });
}

function parseFilter(raw: RawEventFilter): EventFilter {
  const types = new Set((raw.type ?? '').split(',').filter((type) => type !== ''));
  for (const type of types) {
    if (type !== 'system' && type !== 'contract') {
      throw new Error("filter type invalid: if set, type must be either 'system' or 'contract'");
    }
  }
  const contractIds = raw.contractIds ?? [];
  if (contractIds.length > MAX_CONTRACT_IDS) throw new Error(`maximum ${MAX_CONTRACT_IDS} contract IDs per filter`);
  const topics = raw.topics ?? [];
  if (topics.length > MAX_TOPICS) throw new Error(`maximum ${MAX_TOPICS} topics per filter`);
  contractIds.forEach((id, index) => {
    if (!StrKey.isValidContract(id)) throw new Error(`contract ID ${index + 1} invalid`);
  });
  return {
    types,
    contractIds: new Set(contractIds),
    topics: topics.map((topic, index) => {
      try {
        return parseTopic(topic);
      } catch (error) {
        throw new Error(`topic ${index + 1} invalid: ${(error as Error).message}`);
      }
    }),
  };
}

/** protocol.TopicFilter.Valid: at least one segment, at most four besides a trailing `**`, `**` nowhere else. */
function parseTopic(raw: readonly string[]): Segment[] {
  if (raw.length < 1) throw new Error('topic must have at least 1 segment');
  const segments = raw.map(parseSegment);
  const fixed = isZeroOrMore(segments.at(-1)) ? segments.slice(0, -1) : segments;
  const misplaced = fixed.findIndex(isZeroOrMore);
  if (misplaced >= 0) throw new Error(`segment ${misplaced + 1} invalid: wildcard '**' is only allowed as the last segment`);
  if (fixed.length > MAX_SEGMENTS) throw new Error(`topic cannot have more than ${MAX_SEGMENTS} segments`);
  return segments;
}

function parseSegment(raw: string): Segment {
  if (raw === ONE || raw === ZERO_OR_MORE) return { wildcard: raw };
  try {
    return { value: xdr.ScVal.fromXDR(raw, 'base64').toXDR('base64') };
  } catch {
    throw new Error(`segment is neither a wildcard nor a base64 ScVal: ${raw}`);
  }
}

const isZeroOrMore = (segment: Segment | undefined) => segment !== undefined && 'wildcard' in segment && segment.wildcard === ZERO_OR_MORE;

/** An event matches when no filter is given or any one filter matches (each filter: type, contract and topics all match). */
export function matchesAny(filters: readonly EventFilter[], event: ClassicEvent): boolean {
  return filters.length === 0 || filters.some((filter) => matches(filter, event));
}

function matches(filter: EventFilter, event: ClassicEvent): boolean {
  // every classic event is a contract event (ContractEventType CONTRACT)
  if (filter.types.size > 0 && !filter.types.has('contract')) return false;
  if (filter.contractIds.size > 0 && !filter.contractIds.has(event.contractId)) return false;
  return filter.topics.length === 0 || filter.topics.some((topic) => topicMatches(topic, event.topic));
}

/** `*` takes exactly one segment; a trailing `**` any number after the fixed ones; otherwise lengths are equal. */
function topicMatches(filter: readonly Segment[], topic: readonly string[]): boolean {
  const flexible = isZeroOrMore(filter.at(-1));
  const fixed = flexible ? filter.slice(0, -1) : filter;
  if (flexible ? topic.length < fixed.length : topic.length !== fixed.length) return false;
  return fixed.every((segment, index) => 'wildcard' in segment || segment.value === topic[index]);
}
