import type { Conversation } from './corpus';
import {
  expectCallsRanAsRecorded,
  expectCallsStartedBeforeTheirResponseEnded,
  expectFollowUpsPairCalls,
  expectOneOutputPerCall,
  expectResponsesAsRecorded,
  expectTurnEndsAsRecorded,
} from './expect-conversation';
import {
  expectErrorAskedOnce,
  expectErrorNamedAsSent,
  expectRecordedErrorEndsTurn,
  recordedError,
} from './expect-recorded-error';
import { readRecording } from './read-recording';
import { type ConversationRun, runConversation, type TurnHost } from './run-conversation';

/**
 * The corpus as a specification: each conversation replayed once on `host` (the server's
 * recorded bytes over real HTTP, through the public API), then held to what its recording says.
 * Returns each conversation's run, for checks kept apart (see the reasoning metadata checks).
 */
export function describeCorpusReplay({
  conversations,
  host,
  hostName,
}: {
  conversations: readonly Conversation[];
  host: TurnHost;
  hostName: string;
}): (conversation: Conversation) => Promise<ConversationRun> {
  const runs = new Map<string, Promise<ConversationRun>>();
  const runOf = (conversation: Conversation) => {
    const run = runs.get(conversation.id) ?? runConversation({ conversation, host });
    runs.set(conversation.id, run);
    return run;
  };

  describe.each(conversations.map((c) => [c.id, c] as const))(
    `%s replayed ${hostName}`,
    (_id, conversation) => {
      let run: ConversationRun;
      beforeAll(async () => {
        run = await runOf(conversation);
      });
      const error = recordedError(
        conversation.steps.map((body) => readRecording(conversation.provider, body)),
      );

      test('runs each recorded call once, with its recorded id and exact arguments, and no other', () =>
        expectCallsRanAsRecorded(run));
      test('starts each call before its response has ended', () =>
        expectCallsStartedBeforeTheirResponseEnded(run));
      test('gives each call exactly one output', () => expectOneOutputPerCall(run));
      test("records each response's text, reasoning, usage, stop reason and calls as recorded", () =>
        expectResponsesAsRecorded(run));
      test('pairs each call with its result in the follow-up request, as the provider requires', () =>
        expectFollowUpsPairCalls(run));
      if (error) {
        test(`ends the turn failed, naming the provider's error (${error.code})`, () =>
          expectRecordedErrorEndsTurn(run));
        test(`names ${error.code} as the provider sent it, with no HTTP status the server did not send`, () =>
          expectErrorNamedAsSent(run));
        test(`asks once: ${error.code} in the stream is the provider's verdict`, () =>
          expectErrorAskedOnce(run));
      } else {
        test("ends completed with the last answer's text, asking for each response once", () =>
          expectTurnEndsAsRecorded(run));
      }
    },
  );

  return runOf;
}
