import { DurableTurnsError, hasMarker } from '../errors/durable-turns-error';
import type { Message } from '../schema/messages';
import type { ProviderMetadata } from '../schema/provider-metadata';
import type { Usage } from '../schema/usage';

/**
 * One piece of a streamed model response. Tool-call arguments arrive whole, as JSON text.
 *
 * Text and reasoning may come in blocks, each with the provider's `id` for it: a `-start`, its
 * deltas, an `-end`, any of which may carry provider metadata (the last that does is the block's,
 * as in the AI SDK). Blocks are separate parts of the message, even two of a kind in a row (each
 * Anthropic thinking block has its own signature); deltas without an id (the scripted model's)
 * join the part before them when it is of their kind.
 */
export type ModelStreamPart =
  | { type: 'text-delta'; delta: string; id?: string; providerMetadata?: ProviderMetadata }
  | { type: 'reasoning-delta'; delta: string; id?: string; providerMetadata?: ProviderMetadata }
  | {
      type: 'text-start' | 'text-end' | 'reasoning-start' | 'reasoning-end';
      id: string;
      providerMetadata?: ProviderMetadata;
    }
  | {
      type: 'tool-call';
      toolCallId: string;
      toolName: string;
      input: string;
      providerMetadata?: ProviderMetadata;
    }
  /**
   * Provider metadata for a call handed on before the provider finished it (launched while its
   * response streamed): the OpenAI-compatible provider attaches Gemini's thought signature only to
   * the finished call, at the end of the stream.
   */
  | { type: 'tool-call-metadata'; toolCallId: string; providerMetadata: ProviderMetadata }
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
  /**
   * `compaction`: the request asks for a summary of the conversation to stand in for it (its last
   * message says so; `tools` is empty). Absent for the turn's own requests.
   */
  purpose?: 'compaction';
  /**
   * The turn asks for a structured answer (see `OutputConfig`): a model that can ask its provider
   * for JSON of this schema does (the AI SDK adapter sends it as the call's `responseFormat`); the
   * engine checks the answer either way.
   */
  output?: { schema: Record<string, unknown>; name?: string };
}

/**
 * The one port every model sits behind: a streaming call. Adapters (AI SDK providers, the
 * scripted model) implement it; executors only ever see these stream parts.
 */
export interface TurnModel {
  readonly name: string;
  /**
   * Set when this model cannot continue a turn from a receipt (`continuation: 'since-receipt'`),
   * saying why: OpenAI's Responses API with `store: false` keeps no response to continue from.
   */
  readonly cannotContinue?: string;
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart>;
}

const modelErrorMarker = Symbol.for('durable-turns.model-error');

/**
 * A failed model request, of one of three kinds: `transient` (a reset, a 429 or 5xx, a broken
 * stream: asking again may help), `rejected` (the provider's verdict, e.g. a 400 or a spent quota:
 * it would answer the same again) and `context-overflow` (the conversation no longer fits the
 * model's context window: no retry helps, but a shorter or compacted conversation would). `retryable`
 * is true for the first kind only; the code says the kind: `model-transient`, `model-rejected` or
 * `model-context-overflow`.
 */
export class ModelError extends DurableTurnsError {
  readonly [modelErrorMarker] = true;
  readonly retryable: boolean;
  readonly kind: 'transient' | 'rejected' | 'context-overflow';
  constructor(
    message: string,
    retryable: boolean,
    readonly retryAfterMs?: number,
    /** `kind: 'context-overflow'` makes it that kind, never retryable, whatever `retryable` says. */
    { kind }: { kind?: 'context-overflow' } = {},
  ) {
    const resolved = kind ?? (retryable ? 'transient' : 'rejected');
    super(message, { code: `model-${resolved}` });
    this.name = 'ModelError';
    this.kind = resolved;
    this.retryable = resolved === 'transient';
  }

  static override isInstance(error: unknown): error is ModelError {
    return hasMarker(error, modelErrorMarker);
  }
}
