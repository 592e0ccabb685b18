import { DurableTurnsError, hasMarker } from '../errors/durable-turns-error';
import type { Message } from '../schema/messages';
import type { Usage } from '../schema/usage';

/** One piece of a streamed model response. Tool-call arguments arrive whole, as JSON text. */
export type ModelStreamPart =
  | { type: 'text-delta'; delta: string }
  | { type: 'reasoning-delta'; delta: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: string }
  | { type: 'finish'; finishReason: string; usage: Usage }
  /** The provider's id for this response: the receipt that the request was accepted. */
  | { type: 'response-id'; id: string };

/** What a model is told about a tool. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  inputSchema: Record<string, unknown>;
}

export interface ModelRequest {
  turnId: string;
  responseIndex: number;
  messages: Message[];
  tools: ToolSpec[];
  /** `<turnId>/model/<responseIndex>`: the same on every retry of this request. */
  idempotencyKey: string;
  signal?: AbortSignal;
  /**
   * Set when the turn continues statefully (`continuation: 'since-receipt'`) and the provider
   * answered an earlier response with an id: a model that supports it (the OpenAI Responses API's
   * `previous_response_id`) sends only these messages — what came after that response — and the
   * system messages; any other model sends `messages` whole.
   */
  continuation?: { previousResponseId: string; messages: Message[] };
}

/**
 * The one port every model sits behind: a streaming call. Adapters (AI SDK providers, the
 * scripted model) implement it; executors only ever see these stream parts.
 */
export interface TurnModel {
  readonly name: string;
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart>;
}

const modelErrorMarker = Symbol.for('durable-turns.model-error');

/**
 * A failed model request. `retryable` says whether asking again may help (rate limits, 5xx); the
 * code says the same: `model-transient` or `model-rejected`.
 */
export class ModelError extends DurableTurnsError {
  readonly [modelErrorMarker] = true;
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message, { code: retryable ? 'model-transient' : 'model-rejected' });
    this.name = 'ModelError';
  }

  static override isInstance(error: unknown): error is ModelError {
    return hasMarker(error, modelErrorMarker);
  }
}
