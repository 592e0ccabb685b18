import { type Context, context, type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Message, ModelResponse } from '../core';
import { genAi, genAiOperation, turnAttributes } from './gen-ai-attributes';
import type { TurnTracing } from './turn-tracing';

/**
 * Runs one attempt of a model request inside a `chat {model}` span (GenAI conventions: client
 * kind, model, token usage, finish reason, `error.type` on failure), a child of `parent` (default:
 * the active span; on Temporal the model activity's), not made active itself (see traceToolAttempt).
 * Prompt and completion go on it only when tracing captures message content. Without tracing it
 * just runs.
 */
/** What a traced request gives back: a model response, or a summary request's answer (no calls). */
type TracedAnswer = Pick<ModelResponse, 'usage' | 'finishReason'> &
  Partial<Pick<ModelResponse, 'calls' | 'streamedCallCount' | 'message'>>;

export function traceModelRequest<T extends TracedAnswer>(args: ModelRequestTracing<T>): Promise<T> {
  return args.tracing ? traced({ ...args, tracing: args.tracing }) : args.run(noRecord);
}

interface ModelRequestTracing<T> {
  tracing: TurnTracing | undefined;
  model: string;
  turnId: string;
  responseIndex: number;
  /** The request's messages, if known before it runs; else `run` tells them with `input`. */
  messages?: readonly Message[];
  /** The trace context the span belongs to (default: the active one). */
  parent?: Context | undefined;
  run: (record: { input: (messages: readonly Message[]) => void }) => Promise<T>;
}

async function traced<T extends TracedAnswer>({
  tracing,
  model,
  turnId,
  responseIndex,
  messages,
  parent,
  run,
}: ModelRequestTracing<T> & { tracing: TurnTracing }): Promise<T> {
  const span = tracing.tracer.startSpan(
    `${genAiOperation.chat} ${model}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [genAi.operationName]: genAiOperation.chat,
        [genAi.requestModel]: model,
        [turnAttributes.turnId]: turnId,
        [turnAttributes.responseIndex]: responseIndex,
      },
    },
    parent ?? context.active(),
  );
  const input = (given: readonly Message[]) => {
    if (tracing.captureMessageContent) span.setAttribute(genAi.inputMessages, JSON.stringify(given));
  };
  if (messages) input(messages);
  try {
    const response = await run({ input });
    span.setAttributes({
      [genAi.usageInputTokens]: response.usage.inputTokens,
      [genAi.usageOutputTokens]: response.usage.outputTokens,
      [genAi.responseFinishReasons]: [response.finishReason],
      [turnAttributes.toolCallCount]: (response.calls?.length ?? 0) + (response.streamedCallCount ?? 0),
      ...(tracing.captureMessageContent && response.message
        ? { [genAi.outputMessages]: JSON.stringify([response.message]) }
        : {}),
    });
    return response;
  } catch (error) {
    markFailed({ span, error });
    throw error;
  } finally {
    span.end();
  }
}

const noRecord = { input: () => {} };

/** `error.type`: a Temporal failure's type, else the error's class; the message as the span's status. */
export function markFailed({ span, error }: { span: Span; error: unknown }): void {
  const type =
    typeof error === 'object' &&
    error !== null &&
    'type' in error &&
    typeof error.type === 'string' &&
    error.type
      ? error.type
      : error instanceof Error
        ? error.name
        : '_OTHER';
  span.setAttribute(genAi.errorType, type);
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}
