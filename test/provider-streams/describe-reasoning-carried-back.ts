import type { Conversation } from './corpus';
import { expectReasoningCarriedBack, hasReasoningToCarry } from './expect-reasoning-carried-back';
import { expectRequestAsRecorded } from './expect-request-as-recorded';
import { followUpOf } from './follow-up-requests';
import { readRecording } from './read-recording';
import type { ConversationRun } from './run-conversation';

/** A group of checks over conversations already replayed (`runOf` gives each one's run). */
interface CorpusChecks {
  title: string;
  conversations: readonly Conversation[];
  runOf: (conversation: Conversation) => Promise<ConversationRun>;
}

/** Each conversation whose responses hold reasoning a provider wants back, with those responses' steps. */
export function conversationsWithReasoningToCarry(conversations: readonly Conversation[]) {
  return conversations.flatMap((conversation) => {
    const steps = conversation.steps.flatMap((body, index) =>
      hasReasoningToCarry(conversation.provider, readRecording(conversation.provider, body))
        ? [index + 1]
        : [],
    );
    return steps.length > 0 ? [{ conversation, steps }] : [];
  });
}

/**
 * The request after each response with reasoning (in the same turn after calls, or the next turn's
 * first) gives the reasoning back with its metadata, as the provider requires.
 */
export function describeReasoningCarriedBack({ title, conversations, runOf }: CorpusChecks): void {
  const cases = conversationsWithReasoningToCarry(conversations);
  describe(title, () => {
    test.each(cases.map((c) => [c.conversation.id, c] as const))(
      '%s',
      async (_id, { conversation, steps }) => {
        const run = await runOf(conversation);
        for (const step of steps) {
          const recorded = run.answers[step - 1];
          if (!recorded) throw new Error(`${conversation.id} has no step ${step}`);
          expectReasoningCarriedBack(conversation.provider, followUpOf(run, step), step, recorded);
        }
      },
    );
  });
}

/**
 * Where a recording kept the real client's next request, ours carries the response back as it did:
 * the shape the provider accepted, checked on the wire.
 */
export function describeRequestsAsRecorded({ title, conversations, runOf }: CorpusChecks): void {
  const cases = conversations.filter((c) => c.recordedRequests.size > 0);
  describe(title, () => {
    test.each(cases.map((c) => [c.id, c] as const))('%s', async (_id, conversation) => {
      const run = await runOf(conversation);
      for (const [step, recorded] of conversation.recordedRequests)
        expectRequestAsRecorded(conversation.provider, followUpOf(run, step - 1), recorded);
    });
  });
}
