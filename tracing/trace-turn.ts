import { type Context, context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { TurnOutcome } from '../core';
import { genAi, turnAttributes } from './gen-ai-attributes';
import { markFailed } from './trace-model-request';
import type { TurnTracing } from './turn-tracing';

/**
 * Runs a whole turn inside an `invoke_agent` span (GenAI conventions for an agent's invocation),
 * the in-process executor's root, where on Temporal the client's and the workflow's spans are. Its
 * model requests and tool attempts are its children through the context `run` is given (passed on,
 * not made active: see traceToolAttempt). Without tracing it just runs.
 */
export async function traceTurn<T extends TurnOutcome>({
  tracing,
  turnId,
  run,
}: {
  tracing: TurnTracing | undefined;
  turnId: string;
  run: (parent: Context | undefined) => Promise<T>;
}): Promise<T> {
  if (!tracing) return run(undefined);
  const span = tracing.tracer.startSpan('invoke_agent', {
    kind: SpanKind.INTERNAL,
    attributes: { [genAi.operationName]: 'invoke_agent', [turnAttributes.turnId]: turnId },
  });
  try {
    const outcome = await run(trace.setSpan(context.active(), span));
    span.setAttributes({
      [turnAttributes.turnStatus]: outcome.status,
      [genAi.usageInputTokens]: outcome.usage.inputTokens,
      [genAi.usageOutputTokens]: outcome.usage.outputTokens,
    });
    if (outcome.status === 'failed')
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'the turn failed' });
    return outcome;
  } catch (error) {
    markFailed({ span, error });
    throw error;
  } finally {
    span.end();
  }
}
