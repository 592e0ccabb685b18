import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnyTool, Message, TurnModel, TurnResult } from 'durable-turns';
import { uniqueTurnId } from '../conformance/support';
import { type Conversation, fixtureDir, type Provider } from './corpus';
import { readRecording } from './read-recording';
import type { RecordedResponse } from './recorded-response';
import { recordingTools, type ToolInvocation } from './recording-tools';
import { replayModel } from './replay-model';
import { type ReplayedRequest, startReplayServer } from './replay-server';
import { StreamTimeline } from './stream-timeline';

/** Runs one turn to its end on a host that has the conversation's tools and model. */
export type RunTurn = (args: { turnId: string; input: Message[] }) => Promise<TurnResult>;

/** Where turns run (in process, on Temporal): it serves `use` with the tools and model, then shuts down. */
export type TurnHost = <T>(
  setup: { tools: AnyTool[]; model: TurnModel },
  use: (runTurn: RunTurn) => Promise<T>,
) => Promise<T>;

/** What a replayed conversation did, for the checks to read. */
export interface ConversationRun {
  conversation: Conversation;
  /** What each answer the server held says: the recorded steps, then the closing answer. */
  answers: RecordedResponse[];
  result: TurnResult;
  /**
   * A next turn of the same conversation, run when the turn's last response holds reasoning metadata:
   * its request is the one that carries that response back to the provider.
   */
  nextTurn?: TurnResult;
  requests: ReplayedRequest[];
  overruns: number[];
  timeline: StreamTimeline;
  invocations: ToolInvocation[];
}

/**
 * After its last recorded step, a conversation whose model still called tools asks again: it is
 * answered with a real recorded text answer of the same wire format (another conversation's final
 * step), so the turn ends as a turn does and the request that carries the last calls back is seen.
 */
const closingAnswers: Record<Provider, string> = {
  anthropic: 'anthropic/sonnet-4.5-text-then-tool.step2.sse',
  'openai-chat': 'openai-chat/gpt-4o-text-before-tool.step2.sse',
  'openai-compatible': 'openai-chat/gpt-4o-text-before-tool.step2.sse',
  'openai-responses': 'openai-responses/gpt-4o-tool-then-text.step2.sse',
};

/** Replays a conversation over real HTTP through the public API on `host`. */
export async function runConversation({
  conversation,
  host,
}: {
  conversation: Conversation;
  host: TurnHost;
}): Promise<ConversationRun> {
  const { provider } = conversation;
  const closing = readFileSync(join(fixtureDir, closingAnswers[provider]));
  const bodies = [...conversation.steps, closing];
  const answers = bodies.map((body) => readRecording(provider, body));
  const timeline = new StreamTimeline(
    (step) => answers[step - 1]?.calls.filter((call) => call.complete).map((call) => call.id) ?? [],
  );
  const invocations: ToolInvocation[] = [];
  const server = await startReplayServer({ provider, name: conversation.name, answers: bodies, timeline });
  try {
    const model = replayModel({ provider, model: answers[0]?.model, baseURL: server.baseURL });
    const names = answers.flatMap((answer) => answer.calls.map((call) => call.name));
    const tools = recordingTools({ names, timeline, invocations });
    return await host({ tools, model }, async (runTurn) => {
      const input: Message[] = [{ role: 'user', content: `Replay ${conversation.id}` }];
      const result = await runTurn({ turnId: uniqueTurnId('replay'), input });
      const last = answers[result.modelResponses - 1];
      const nextTurn =
        result.status === 'completed' && last && last.reasoningMetadata.length > 0
          ? await runTurn({
              turnId: uniqueTurnId('replay-next'),
              input: [...input, ...result.transcript, { role: 'user', content: 'Go on.' }],
            })
          : undefined;
      return {
        conversation,
        answers,
        result,
        ...(nextTurn ? { nextTurn } : {}),
        requests: server.requests,
        overruns: server.overruns,
        timeline,
        invocations,
      };
    });
  } finally {
    await server.close();
  }
}
