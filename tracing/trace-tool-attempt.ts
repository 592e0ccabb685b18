import { type Context, context, type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { AttemptCall, AttemptResult } from '../core';
import { genAi, genAiOperation, turnAttributes } from './gen-ai-attributes';
import { childSpansOf, type TurnTracing } from './turn-tracing';

/**
 * Runs one attempt of a tool call inside an `execute_tool {tool}` span (GenAI conventions: tool
 * name, call id, `error.type` when the attempt's output is an error or it was interrupted); each
 * retry is an attempt, so a span of its own. Arguments and output go on it only when tracing
 * captures message content. Without tracing it just runs.
 *
 * The span is a child of `parent` (default: the active context) but is not made active itself:
 * on Node 20 running code in a context turns on promise hooks that slow every await of the turn,
 * which for quick tools would cost more than the span (measured 2026-12-01). For the same
 * reason it is made by ChildSpans where it can be, and the attempt's promise gets one `then`, no
 * async function around it.
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
  call: AttemptCall;
  attempt: number;
  /** The trace context the span belongs to (default: the active one). */
  parent?: Context | undefined;
  run: () => Promise<T>;
}): Promise<T> {
  // Untraced, the attempt's own promise: not even a tick more.
  if (!tracing) return run();
  const span = startToolAttemptSpan({ tracing, turnId, call, attempt, parent });
  // runToolAttempt never rejects; should a host's wrapper, the span still ends.
  return run().then(
    (ran) => {
      endToolAttemptSpan({ tracing, span, result: ran.result });
      return ran;
    },
    (error: unknown) => {
      span.end();
      throw error;
    },
  );
}

/** The attempt's attributes: literal keys (a computed one makes the object literal slow to build). */
type AttemptAttributes = {
  [genAi.operationName]: string;
  [genAi.toolName]: string;
  [genAi.toolType]: string;
  [genAi.toolCallId]: string;
  [turnAttributes.turnId]: string;
  [turnAttributes.toolAttempt]: number;
  [genAi.toolCallArguments]?: string;
};

// Read once: under tsx (the benchmarks) every use of another module's export is a getter call.
const { toolStatus } = turnAttributes;
const { errorType, toolCallArguments, toolCallResult } = genAi;
const { executeTool } = genAiOperation;
let lastTool = '';
let lastName = '';

/** `execute_tool {tool}`, made once per run of calls of one tool rather than once per call. */
function spanName({ toolName }: { toolName: string }): string {
  if (toolName !== lastTool) {
    lastTool = toolName;
    lastName = `${executeTool} ${toolName}`;
  }
  return lastName;
}

/**
 * traceToolAttempt's span, for a host that has a `then` on the attempt's promise anyway (one
 * promise fewer per call): started now, ended by endToolAttemptSpan with the attempt's result.
 */
export function startToolAttemptSpan({
  tracing,
  turnId,
  call,
  attempt,
  parent = context.active(),
}: {
  tracing: TurnTracing;
  turnId: string;
  call: AttemptCall;
  attempt: number;
  /** The trace context the span belongs to (default: the active one). */
  parent?: Context | undefined;
}): Span {
  const name = spanName({ toolName: call.toolName });
  const attributes: AttemptAttributes = {
    'gen_ai.operation.name': executeTool,
    'gen_ai.tool.name': call.toolName,
    'gen_ai.tool.type': 'function',
    'gen_ai.tool.call.id': call.toolCallId,
    'durable_turns.turn.id': turnId,
    'durable_turns.tool.attempt': attempt,
  };
  if (tracing.captureMessageContent) attributes[toolCallArguments] = JSON.stringify(call.input);
  return (
    childSpansOf({ tracing })?.start({ name, parent, attributes }) ??
    tracing.tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent)
  );
}

export function endToolAttemptSpan({
  tracing,
  span,
  result,
}: {
  tracing: TurnTracing;
  span: Span;
  result: AttemptResult;
}): void {
  span.setAttribute(toolStatus, result.status);
  if (result.status === 'error' || result.status === 'interrupted') {
    span.setAttribute(errorType, result.errorType);
    span.setStatus({ code: SpanStatusCode.ERROR, message: result.errorType });
  }
  if (tracing.captureMessageContent && 'content' in result)
    span.setAttribute(toolCallResult, JSON.stringify(result.content) ?? 'null');
  span.end();
}
