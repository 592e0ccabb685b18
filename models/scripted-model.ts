import { ModelError, type ModelRequest, type ModelStreamPart, type TurnModel, type Usage } from '../core';

export interface ScriptedCall {
  id?: string;
  name: string;
  /** Arguments: any JSON value, or raw text (to script malformed arguments). */
  args: unknown;
  /** Wait this long before the call's arguments complete in the stream. */
  delayMs?: number;
}

export type ScriptedPart =
  | (ModelStreamPart & { delayMs?: number })
  /** The stream breaks here. */
  | { type: 'error'; message: string; retryable?: boolean; delayMs?: number };

export interface ScriptedResponse {
  text?: string;
  reasoning?: string;
  toolCalls?: ScriptedCall[];
  usage?: Usage;
  finishReason?: string;
  /** Wait this long before the finish part. */
  finishDelayMs?: number;
  /** The first N requests for this step fail with a retryable error before any part streams. */
  failFirst?: number;
}

export interface ScriptedModelOptions {
  /**
   * How it answers a compaction's summary request (`purpose: 'compaction'`), which takes no step of
   * the script: by default with `summary of N messages`, N the messages summarised.
   */
  summarize?: (request: ModelRequest) => { text?: string; usage?: Usage; failWith?: Error };
}

/** One model response: shorthand, explicit stream parts, or computed from the request. */
export type ScriptedStep =
  | ScriptedResponse
  | { parts: ScriptedPart[] }
  | ((request: ModelRequest) => ScriptedResponse | { parts: ScriptedPart[] });

/**
 * A deterministic model for tests and demos. Step N answers the turn's response N, so it is
 * stateless across processes and retries (a Temporal worker that restarts gets the same answers).
 * It fails loudly on a request it has no step for, and `assertConsumed` on steps never asked for.
 */
export class ScriptedModel implements TurnModel {
  readonly requests: ModelRequest[] = [];
  private readonly attempts = new Map<string, number>();

  constructor(
    private readonly steps: readonly ScriptedStep[],
    readonly name = 'scripted',
    private readonly options: ScriptedModelOptions = {},
  ) {}

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
    this.requests.push(request);
    if (request.purpose === 'compaction') {
      // A summary request is not one of the turn's responses: it takes no step.
      const answer = this.options.summarize?.(request) ?? {
        text: `summary of ${request.messages.length - 1} messages`,
      };
      if (answer.failWith) throw answer.failWith;
      yield { type: 'text-delta', delta: answer.text ?? '' };
      yield {
        type: 'finish',
        finishReason: 'stop',
        usage: answer.usage ?? { inputTokens: 0, outputTokens: 0 },
      };
      return;
    }
    const step = this.steps[request.responseIndex];
    if (step === undefined) {
      throw new ModelError(
        `scripted model has no step for response ${request.responseIndex} of turn ${request.turnId} (it has ${this.steps.length}); the turn asked the model more often than the script expects`,
        false,
      );
    }
    const resolved = typeof step === 'function' ? step(request) : step;
    const key = `${request.turnId}#${request.responseIndex}`;
    const attempt = (this.attempts.get(key) ?? 0) + 1;
    this.attempts.set(key, attempt);
    if ('failFirst' in resolved && resolved.failFirst !== undefined && attempt <= resolved.failFirst) {
      throw new ModelError(`scripted transient failure ${attempt} of ${resolved.failFirst}`, true);
    }
    for (const part of 'parts' in resolved ? resolved.parts : toParts(resolved, request.responseIndex)) {
      if (part.delayMs) await sleep(part.delayMs, request.signal);
      if (request.signal?.aborted) throw new ModelError('model request aborted', false);
      if (part.type === 'error') throw new ModelError(part.message, part.retryable ?? false);
      const { delayMs: _delay, ...clean } = part;
      yield clean as ModelStreamPart;
    }
  }

  /** Throws unless every step was requested (for this turn, when given). */
  assertConsumed(turnId?: string): void {
    const served = new Set(
      this.requests.filter((r) => turnId === undefined || r.turnId === turnId).map((r) => r.responseIndex),
    );
    const missing = this.steps.map((_, i) => i).filter((i) => !served.has(i));
    if (missing.length > 0)
      throw new Error(`scripted model: steps ${missing.join(', ')} were never requested`);
  }
}

export function scriptedModel(
  steps: readonly ScriptedStep[],
  name?: string,
  options?: ScriptedModelOptions,
): ScriptedModel {
  return new ScriptedModel(steps, name, options);
}

function toParts(step: ScriptedResponse, responseIndex: number): ScriptedPart[] {
  const parts: ScriptedPart[] = [];
  if (step.reasoning) parts.push({ type: 'reasoning-delta', delta: step.reasoning });
  if (step.text) parts.push({ type: 'text-delta', delta: step.text });
  for (const [i, call] of (step.toolCalls ?? []).entries()) {
    const part: ScriptedPart = {
      type: 'tool-call',
      toolCallId: call.id ?? `call_${responseIndex}_${i + 1}`,
      toolName: call.name,
      input: typeof call.args === 'string' ? call.args : JSON.stringify(call.args),
    };
    if (call.delayMs) part.delayMs = call.delayMs;
    parts.push(part);
  }
  parts.push({
    type: 'finish',
    finishReason: step.finishReason ?? (step.toolCalls?.length ? 'tool-calls' : 'stop'),
    usage: step.usage ?? { inputTokens: 0, outputTokens: 0 },
    ...(step.finishDelayMs ? { delayMs: step.finishDelayMs } : {}),
  });
  return parts;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ModelError('model request aborted', false));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ModelError('model request aborted', false));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
