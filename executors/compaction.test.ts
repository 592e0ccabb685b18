import {
  defineTool,
  InProcessConversations,
  InProcessExecutor,
  type Message,
  ModelError,
  type ModelRequest,
  type ScriptedModelOptions,
  type ScriptedStep,
  scriptedModel,
  transcriptProblems,
} from 'durable-turns';
import { z } from 'zod';
import { summaryMessage } from '../core';

const work = defineTool({
  name: 'work',
  description: 'Does a unit of work',
  input: z.object({ n: z.number() }),
  concurrencySafe: true,
  execute: ({ n }) => `did ${n}`,
});
const call = (n: number) => ({ toolCalls: [{ id: `w${n}`, name: 'work', args: { n } }] });
const big = { inputTokens: 900, outputTokens: 200 };
const user = (content: string): Message => ({ role: 'user', content });
const isSummary = (request: ModelRequest) => request.purpose === 'compaction';
const turnRequests = (requests: ModelRequest[]) => requests.filter((r) => !isSummary(r));

function executorWith(steps: ScriptedStep[], options: ScriptedModelOptions = {}, maxContextTokens?: number) {
  const model = scriptedModel(steps, 'scripted', options);
  const executor = new InProcessExecutor({
    tools: [work],
    model,
    blobStore: false,
    tracing: false,
    modelRetry: { initialDelayMs: 1 },
    compaction: maxContextTokens === undefined ? {} : { maxContextTokens },
  });
  return { model, executor };
}

describe('compaction in process', () => {
  test('once the context reaches its configured size, what came before the message being answered is summarised, and later requests send the summary in its place', async () => {
    const { model, executor } = executorWith(
      [call(0), { ...call(1), usage: big }, { text: 'done' }],
      { summarize: () => ({ text: 'they did 0', usage: { inputTokens: 40, outputTokens: 5 } }) },
      1_000,
    );
    const result = await executor.runTurn({ turnId: 'compact-budget', input: 'go' });
    expect(result.status).toBe('completed');
    const input = user('go');
    const [a0, t0, a1, t1] = result.transcript;
    // The summary request: everything before the answered message (response 1), then the instruction; no tools.
    const summaryRequest = model.requests.find(isSummary);
    expect(summaryRequest?.tools).toEqual([]);
    expect(summaryRequest?.messages.slice(0, -1)).toEqual([input, a0, t0]);
    expect(summaryRequest?.messages.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringContaining('summary'),
    });
    // Response 2's request: the summary, the turn's input, then response 1 with its output, as they were.
    expect(turnRequests(model.requests)[2]?.messages).toEqual([summaryMessage('they did 0'), input, a1, t1]);
    // The transcript is whole: compaction changes what requests send, not what happened.
    expect(result.transcript).toHaveLength(5);
    expect(transcriptProblems(result.transcript)).toEqual([]);
    expect(result.events.filter((e) => e.type === 'context.compacted')).toEqual([
      {
        type: 'context.compacted',
        through: 3,
        summary: 'they did 0',
        usage: { inputTokens: 40, outputTokens: 5 },
      },
    ]);
    expect(result.usage).toEqual({ inputTokens: 940, outputTokens: 205 });
  });

  test("a request the provider refuses as too long is compacted and asked again; one that has nothing to compact fails the turn with the provider's words", async () => {
    const tooLong = (request: ModelRequest) => {
      if (request.messages[0] !== undefined && typeof request.messages[0].content === 'string')
        if (!request.messages[0].content.startsWith('Summary'))
          throw new ModelError('prompt is too long: 210000 tokens > 200000 maximum', false, undefined, {
            kind: 'context-overflow',
          });
      return { text: 'fits now' };
    };
    const { model, executor } = executorWith([call(0), call(1), tooLong]);
    const result = await executor.runTurn({ turnId: 'compact-overflow', input: 'go' });
    expect(result.status).toBe('completed');
    expect(result.text).toBe('fits now');
    expect(model.requests.map((r) => (isSummary(r) ? 'summary' : r.responseIndex))).toEqual([
      0,
      1,
      2,
      'summary',
      2,
    ]);

    const { executor: nothing } = executorWith([tooLong]);
    const failed = await nothing.runTurn({ turnId: 'compact-nothing', input: 'go' });
    expect(failed.status).toBe('failed');
    expect(failed.reason).toBe(
      'the context is too long for the model, and compacting it failed: the context is too long, and there is nothing before the message being answered to summarise',
    );
  });

  test('a summary request that fails for good under the configured size is given up: the turn goes on uncompacted', async () => {
    const { model, executor } = executorWith(
      [call(0), { ...call(1), usage: big }, { text: 'done' }],
      { summarize: () => ({ failWith: new ModelError('summary refused', false) }) },
      1_000,
    );
    const result = await executor.runTurn({ turnId: 'compact-declined', input: 'go' });
    expect(result.status).toBe('completed');
    expect(result.events.some((e) => e.type === 'context.compacted')).toBe(false);
    expect(turnRequests(model.requests)[2]?.messages).toHaveLength(5);
  });

  test('in a conversation the summary covers the earlier turns too, and the turns after it send it instead of them', async () => {
    const steps: ScriptedStep[] = [
      (request) => {
        const text = [...request.messages].reverse().find((m) => m.role === 'user')?.content;
        return text === 'big' ? { ...call(0), usage: big } : { text: `answer to ${String(text)}` };
      },
      { text: 'second answer' },
    ];
    const { model, executor } = executorWith(
      steps,
      { summarize: () => ({ text: 'turn one happened' }) },
      1_000,
    );
    const conversations = new InProcessConversations({ executor });
    await conversations.send('compacting', 'one', { messageId: 'm1' });
    await conversations.idle('compacting');
    await conversations.send('compacting', 'big', { messageId: 'm2' });
    await conversations.idle('compacting');
    await conversations.send('compacting', 'three', { messageId: 'm3' });
    await conversations.idle('compacting');
    // Turn 2's summary request began with turn 1.
    expect(model.requests.find(isSummary)?.messages.slice(0, 2)).toEqual([
      user('one'),
      { role: 'assistant', content: [{ type: 'text', text: 'answer to one' }] },
    ]);
    // Turn 3 sends turn 2 as its compacted context, and nothing of turn 1.
    const third = model.requests.find((r) => r.turnId === 'compacting#3');
    expect(third?.messages[0]).toEqual(summaryMessage('turn one happened'));
    expect(third?.messages.filter((m) => m.role === 'user')).toEqual([
      summaryMessage('turn one happened'),
      user('big'),
      user('three'),
    ]);
    // The conversation's transcript is whole: every turn's messages, none summarised away.
    expect((await conversations.transcript('compacting')).filter((m) => m.role === 'user')).toEqual([
      user('one'),
      user('big'),
      user('three'),
    ]);
  });
});
