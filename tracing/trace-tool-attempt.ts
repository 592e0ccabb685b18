import { type Context, context, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { AttemptResult, PreparedCall } from '../core';
import { genAi, genAiOperation, turnAttributes } from './gen-ai-attributes';
import type { TurnTracing } from './turn-tracing';

/**
 * Runs one attempt of a tool call inside an `execute_tool {tool}` span (GenAI conventions: tool
 * name, call id, `error.type` when the attempt's output is an error or it was interrupted); each
 * retry is an attempt, so a span of its own. Arguments and output go on it only when tracing
 * captures message content. Without tracing it just runs.
 */
export function traceToolAttempt<T extends { result: AttemptResult }>({
  tracing,
  turnId,
  call,
  attempt,
  parent,
  run,
}: {
  tracing: TurnTracing | undefined;
  turnId: string;
  call: PreparedCall;
  attempt: number;
  /** The trace context the span belongs to (default: the active one). */
  parent?: Context;
  run: () => Promise<T>;
}): Promise<T> {
  if (!tracing) return run();
  return tracing.tracer.startActiveSpan(
    `${genAiOperation.executeTool} ${call.toolName}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        [genAi.operationName]: genAiOperation.executeTool,
        [genAi.toolName]: call.toolName,
        [genAi.toolType]: 'function',
        [genAi.toolCallId]: call.toolCallId,
        [turnAttributes.turnId]: turnId,
        [turnAttributes.toolAttempt]: attempt,
        ...(tracing.captureMessageContent ? { [genAi.toolCallArguments]: JSON.stringify(call.input) } : {}),
      },
    },
    parent ?? context.active(),
    async (span) => {
      // runToolAttempt never rejects; should a host's wrapper, the span still ends.
      try {
        const ran = await run();
        const { result } = ran;
        span.setAttribute(turnAttributes.toolStatus, result.status);
        if (result.status === 'error' || result.status === 'interrupted') {
          span.setAttribute(genAi.errorType, result.errorType);
          span.setStatus({ code: SpanStatusCode.ERROR, message: result.errorType });
        }
        if (tracing.captureMessageContent && 'content' in result)
          span.setAttribute(genAi.toolCallResult, JSON.stringify(result.content) ?? 'null');
        return ran;
      } finally {
        span.end();
      }
    },
  );
}
