import { defineTool, type ModelRequest, scriptedModel, type TurnModel } from 'durable-turns';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
import { uniqueTurnId } from '../conformance/support';
import { TemporalKit } from './support/kit';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const echo = defineTool({
  name: 'echo',
  description: 'Answers with its argument',
  input: z.object({ n: z.number() }),
  concurrencySafe: true,
  retrySafe: true,
  execute: ({ n }) => `echo ${n}`,
});

describe('a worker shutting down', () => {
  test('is not held by a model request whose streamed calls wait for a workflow task nobody takes; another worker finishes the turn', async () => {
    const taskQueue = kit.taskQueue('worker-shutdown');
    const client = kit.client(taskQueue);
    // The call is complete only after the worker has begun shutting down, so the Update that hands
    // it to the workflow needs a workflow task the draining worker will not take.
    const scripted = scriptedModel([
      { toolCalls: [{ id: 'a', name: 'echo', args: { n: 1 }, delayMs: 2_500 }] },
      { text: 'done' },
    ]);
    let streaming: () => void = () => {};
    const firstRequestStreams = new Promise<void>((resolve) => {
      streaming = resolve;
    });
    const model: TurnModel = {
      name: 'slow-start',
      async *stream(request: ModelRequest) {
        streaming();
        yield* scripted.stream(request);
      },
    };
    const worker = () =>
      createTurnWorker({
        connection: kit.native,
        namespace: kit.namespace,
        taskQueue,
        tools: [echo],
        models: [model],
        worker: { shutdownGraceTime: '1s' },
      });

    const turn = await client.start({ turnId: uniqueTurnId('shutdown'), input: 'go', model: 'slow-start' });
    const first = await worker();
    const running = first.run();
    await firstRequestStreams;
    const shutdownAt = Date.now();
    first.shutdown();
    await running;
    const shutdownMs = Date.now() - shutdownAt;
    // Grace time 1 s, then the cancelled request lets go; without that it waited minutes.
    expect(shutdownMs).toBeLessThan(20_000);

    const result = await (await worker()).runUntil(turn.result());
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual([
      expect.objectContaining({ toolCallId: 'a', status: 'ok', content: 'echo 1' }),
    ]);
    expect(result.text).toBe('done');
  }, 120_000);
});
