import { defineTool, scriptedModel } from 'durable-turns';
import { z } from 'zod';
import { sleep, uniqueTurnId } from '../conformance/support';
import { TemporalKit } from './support/kit';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const slow = defineTool({
  name: 'slow',
  description: 'Takes a while',
  input: z.object({ ms: z.number() }),
  concurrencySafe: true,
  execute: async ({ ms }) => {
    await sleep(ms);
    return 'done';
  },
});

describe('watching a turn', () => {
  test('a watcher sees calls accepted, started and finished, and the responses, as they happen and in order', async () => {
    const taskQueue = kit.taskQueue('watch');
    const model = scriptedModel([
      {
        parts: [
          { type: 'text-delta', delta: 'working' },
          { type: 'tool-call', toolCallId: 'a', toolName: 'slow', input: '{"ms":1500}', delayMs: 50 },
          { type: 'tool-call', toolCallId: 'b', toolName: 'slow', input: '{"ms":1500}', delayMs: 50 },
          {
            type: 'finish',
            finishReason: 'tool-calls',
            usage: { inputTokens: 1, outputTokens: 1 },
            delayMs: 500,
          },
        ],
      },
      { text: 'all done' },
    ]);
    const worker = await kit.worker({ taskQueue, tools: [slow], model });
    await worker.runUntil(async () => {
      const client = kit.client(taskQueue);
      const turnId = uniqueTurnId('watch');
      const turn = await client.start({ turnId, input: 'go', model: 'scripted' });
      let finishedAt = 0;
      const result = turn.result().then((r) => {
        finishedAt = Date.now();
        return r;
      });
      const seen: { type: string; at: number; seq: number }[] = [];
      for await (const { seq, entry } of client.watch(turnId, { intervalMs: 50, live: false }))
        seen.push({ type: entry.type, at: Date.now(), seq });
      await result;
      const types = seen.map((s) => s.type);
      expect(seen.map((s) => s.seq)).toEqual(seen.map((_, i) => i + 1));
      expect(types[0]).toBe('turn.started');
      expect(types.at(-1)).toBe('turn.finished');
      const index = (type: string) => types.indexOf(type);
      expect(index('model.call_accepted')).toBeLessThan(index('model.responded'));
      expect(index('tool.attempt_started')).toBeLessThan(index('model.responded'));
      expect(types.filter((t) => t === 'tool.completed')).toHaveLength(2);
      // Seen live: the first start was reported well before the turn ended.
      const started = seen.find((s) => s.type === 'tool.attempt_started');
      expect(finishedAt - (started?.at ?? finishedAt)).toBeGreaterThan(700);
    });
  });
});
