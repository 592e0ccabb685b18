import { defineTool, type ModelRequest, scriptedModel, transcriptProblems } from 'durable-turns';
import { z } from 'zod';
import type { ConformanceHarness } from './harness';
import { sleep, uniqueTurnId, withoutTurnId } from './support';

/** A tool that runs until `release()`; `started` once it runs. */
function heldTool() {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const state = { started: false };
  const held = defineTool({
    name: 'held',
    description: 'Runs until released',
    input: z.object({}),
    execute: async (_args, ctx) => {
      state.started = true;
      while (!(await Promise.race([released.then(() => true), sleep(20).then(() => false)]))) ctx.heartbeat();
      return 'held done';
    },
  });
  return { held, state, release: () => release() };
}

const lastUser = (request: ModelRequest) =>
  [...request.messages].reverse().find((m) => m.role === 'user')?.content as string;

async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

export function steerCases(harness: ConformanceHarness): void {
  describe(`steer (${harness.name})`, () => {
    test('a message sent while a call runs joins at the next request: the call goes on, its output stands, and the model reads the message next', async () => {
      const { held, state, release } = heldTool();
      const model = scriptedModel([
        { toolCalls: [{ id: 'h', name: 'held', args: {} }] },
        (request) => ({ text: `told: ${lastUser(request)}` }),
      ]);
      const turn = await harness.start({ turnId: uniqueTurnId('steer'), input: 'go', tools: [held], model });
      await until('the held call to run', () => state.started);
      await turn.steer('m1', 'use the short form');
      await turn.steer('m2', 'and be quick');
      // Once sent they are ahead of the call's end (in the queue in process, in history on Temporal).
      release();
      const result = await turn.result;
      expect(result.status).toBe('completed');
      expect(result.text).toBe('told: and be quick');
      expect(result.outputs).toEqual([
        expect.objectContaining({ toolCallId: 'h', status: 'ok', content: 'held done' }),
      ]);
      expect(withoutTurnId(result.events).map((e) => e.type)).toEqual([
        'turn.started',
        'model.requested',
        'model.responded',
        'tool.completed',
        'user.steered',
        'model.requested',
        'model.responded',
        'turn.finished',
      ]);
      expect(result.events.find((e) => e.type === 'user.steered')).toEqual({
        type: 'user.steered',
        messages: [
          { messageId: 'm1', message: { role: 'user', content: 'use the short form' } },
          { messageId: 'm2', message: { role: 'user', content: 'and be quick' } },
        ],
      });
      expect(transcriptProblems(result.transcript)).toEqual([]);
    });

    test('a message sent while the model streams its final answer is not taken: the turn ends as it would', async () => {
      const model = scriptedModel([{ text: 'the answer', finishDelayMs: 1_500 }]);
      const turn = await harness.start({ turnId: uniqueTurnId('steer-late'), input: 'go', tools: [], model });
      await until('the answer to stream', () => model.requests.length > 0);
      // On a machine too busy to send it within the stream, the turn has ended and refuses it: not taken either.
      await turn.steer('m1', 'too late').catch(() => {});
      const result = await turn.result;
      expect(result.status).toBe('completed');
      expect(result.text).toBe('the answer');
      expect(result.events.some((e) => e.type === 'user.steered')).toBe(false);
    });
  });
}
