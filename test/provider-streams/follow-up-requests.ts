import type { ConversationRun } from './run-conversation';

/**
 * The request that carried step `step`'s response back to the provider: the first to ask for the
 * step after it (in the same turn, or in the next turn when the turn ended there).
 */
export function followUpOf(run: ConversationRun, step: number): unknown {
  return run.requests.find((request) => request.step === step + 1)?.body;
}

/** The steps (1-based) whose responses the turns received, in order. */
export function answeredSteps(run: ConversationRun): number[] {
  return Array.from({ length: run.result.modelResponses }, (_, index) => index + 1);
}
