import { type Context, context, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { AttemptResult, PreparedCall } from '../core';
import { genAi, genAiOperation, turnAttributes } from './gen-ai-attributes';
import type { TurnTracing } from './turn-tracing';

/**
 * Runs one attempt of a tool call inside an `execute_tool {tool}` span (GenAI conventions: tool
 * name, call id, `error.type` when the attempt's output is an error or it was interrupted); each
 * retry is an attempt, so a span of its own. Arguments and output go on it only when tracing
 * captures message content. Without tracing it just runs.
 *
 * The span is a child of `parent` (default: the active context) but is not made active itself:
 * on Node 20 running code in a context turns on promise hooks that slow every await of the turn,
 * which for quick tools would cost more than the span (bench/tracing-overhead.ts).
 */
export function traceToolAttempt<T extends { result: AttemptResult }>(args: {
  tracing: TurnTracing | undefined;
  turnId: string;
  call: PreparedCall;
  attempt: number;
  /** The trace context the span belongs to (default: the active one). */
  parent?: Context | undefined;
  run: () => Promise<T>;
}): Promise<T> {
  // Untraced, the attempt's own promise: not even a tick more.
  return args.tracing ? traced({ ...args, tracing: args.tracing }) : args.run();
}

async function traced<T extends { result: AttemptResult }>({
  tracing,
  turnId,
  call,
  attempt,
  parent,
  run,
}: Parameters<typeof traceToolAttempt<T>>[0] & { tracing: TurnTracing }): Promise<T> {
  const span = tracing.tracer.startSpan(
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
  );
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
}
