import type { Message } from '../schema/messages';
import type { Usage } from '../schema/usage';

/** One piece of a streamed model response. Tool-call arguments arrive whole, as JSON text. */
export type ModelStreamPart =
  | { type: 'text-delta'; delta: string }
  | { type: 'reasoning-delta'; delta: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: string }
  | { type: 'finish'; finishReason: string; usage: Usage };

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

/** A failed model request. `retryable` says whether asking again may help (rate limits, 5xx). */
export class ModelError extends Error {
  readonly [modelErrorMarker] = true;
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ModelError';
  }

  static isInstance(error: unknown): error is ModelError {
    return typeof error === 'object' && error !== null && modelErrorMarker in error;
  }
}
