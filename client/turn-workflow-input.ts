import type { z } from 'zod';
import { type TurnWorkflowInput, turnWorkflowInputSchema } from '../contract/turn-workflow';
import { normalizeInput, turnConfigOf } from '../core';
import type { StartTurnArgs, startTurnSchema } from './start-turn-args';

/**
 * The workflow input of a turn start. `modelRetry` and `timeouts` are patches over defaults (and over
 * the older `timing` names), so they are read from what the caller gave: parsed, their schemas' own
 * defaults would fill every unnamed field (`modelRetry: { initialDelayMs: 50 }` would mean one attempt).
 */
export function turnWorkflowInputFrom({
  args,
  parsed: a,
}: {
  args: StartTurnArgs;
  parsed: z.output<typeof startTurnSchema>;
}): TurnWorkflowInput {
  return turnWorkflowInputSchema.parse({
    turnId: a.turnId,
    ...(a.conversationId ? { conversationId: a.conversationId } : {}),
    input: normalizeInput(a.input),
    model: a.model,
    config: turnConfigOf({
      ...a,
      modelRetry: {
        ...(a.timing?.modelMaxAttempts ? { maxAttempts: a.timing.modelMaxAttempts } : {}),
        ...args.modelRetry,
      },
      timeouts: {
        ...(a.timing?.toolTimeoutMs ? { toolMs: a.timing.toolTimeoutMs } : {}),
        ...(a.timing?.modelTimeoutMs ? { modelMs: a.timing.modelTimeoutMs } : {}),
        ...args.timeouts,
      },
    }),
    ...(a.timing ? { timing: a.timing } : {}),
    ...(a.continueAsNewAfterEvents ? { continueAsNewAfterEvents: a.continueAsNewAfterEvents } : {}),
    ...(a.maxOutputBytes ? { maxOutputBytes: a.maxOutputBytes } : {}),
    ...(a.fork ? { fork: a.fork } : {}),
  });
}
