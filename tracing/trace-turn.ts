import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { TurnOutcome } from '../core';
import { genAi, turnAttributes } from './gen-ai-attributes';
import { markFailed } from './trace-model-request';
import type { TurnTracing } from './turn-tracing';

/**
 * Runs a whole turn inside an `invoke_agent` span (GenAI conventions for an agent's invocation),
 * so its model requests and tool attempts are its children — the in-process executor's root, where
 * on Temporal the client's and the workflow's spans are. Without tracing it just runs.
 */
export function traceTurn<T extends TurnOutcome>({
  tracing,
  turnId,
  run,
}: {
  tracing: TurnTracing | undefined;
  turnId: string;
  run: () => Promise<T>;
}): Promise<T> {
  if (!tracing) return run();
  return tracing.tracer.startActiveSpan(
    'invoke_agent',
    {
      kind: SpanKind.INTERNAL,
      attributes: { [genAi.operationName]: 'invoke_agent', [turnAttributes.turnId]: turnId },
    },
    async (span) => {
      try {
        const outcome = await run();
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
    },
  );
}
