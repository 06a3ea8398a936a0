/** JSON-RPC 2.0's error codes, as stellar-rpc (jrpc2) answers them: always with HTTP 200. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

export type RequestId = string | number | null;

/** A method's refusal: becomes the answer's `error` member. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export const invalidParams = (message: string) => new RpcError(INVALID_PARAMS, message);

export type RpcAnswer =
  | { jsonrpc: '2.0'; id: RequestId; result: unknown }
  | { jsonrpc: '2.0'; id: RequestId; error: { code: number; message: string } };

export const resultAnswer = (id: RequestId, result: unknown): RpcAnswer => ({ jsonrpc: '2.0', id, result });

export const errorAnswer = (id: RequestId, code: number, message: string): RpcAnswer => ({
  jsonrpc: '2.0',
  id,
  error: { code, message },
});

export interface RpcCall {
  /** Undefined for a notification, which gets no answer. */
  id: RequestId | undefined;
  method: string;
  params: unknown;
}

/** Checks one member of a request (or of a batch); an answer if it is not a valid request. */
export function parseCall(input: unknown): RpcCall | RpcAnswer {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return errorAnswer(null, INVALID_REQUEST, 'invalid request');
  const request = input as Record<string, unknown>;
  const id = request.id;
  const validId = id === undefined || id === null || typeof id === 'string' || typeof id === 'number';
  if (!validId) return errorAnswer(null, INVALID_REQUEST, 'invalid request: id must be a string, a number or null');
  if (request.jsonrpc !== '2.0') return errorAnswer(id ?? null, INVALID_REQUEST, 'invalid request: jsonrpc must be "2.0"');
  if (typeof request.method !== 'string' || request.method === '') {
    return errorAnswer(id ?? null, INVALID_REQUEST, 'invalid request: method must be a non-empty string');
  }
  return { id, method: request.method, params: request.params };
}
