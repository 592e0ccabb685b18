import { type ModelRequest, scriptedModel, type TurnModel } from 'durable-turns';
import { createTurnWorker } from 'durable-turns/worker';
import { uniqueTurnId } from '../conformance/support';
import { echoTool as echo } from '../support/echo-tool';
import { signal } from '../support/signal';
import { TemporalKit } from './support/kit';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

/**
 * Starts a turn whose first model request streams one call `callDelayMs` after it begins, shuts the
 * worker down as soon as that request begins, and has a second worker finish the turn.
 */
async function shutDownMidRequest({ callDelayMs, graceMs }: { callDelayMs: number; graceMs: number }) {
  const taskQueue = kit.taskQueue('worker-shutdown');
  const client = kit.client(taskQueue);
  const scripted = scriptedModel([
    { toolCalls: [{ id: 'a', name: 'echo', args: { n: 1 }, delayMs: callDelayMs }] },
    { text: 'done' },
  ]);
  const firstRequestStreams = signal();
  const model: TurnModel = {
    name: 'slow-start',
    async *stream(request: ModelRequest) {
      firstRequestStreams.fire();
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
      worker: { shutdownGraceTime: graceMs },
    });

  const turn = await client.start({ turnId: uniqueTurnId('shutdown'), input: 'go', model: 'slow-start' });
  const first = await worker();
  const running = first.run();
  await firstRequestStreams.happened;
  const shutdownAt = Date.now();
  first.shutdown();
  await running;
  const shutdownMs = Date.now() - shutdownAt;
  const result = await (await worker()).runUntil(turn.result());
  return { shutdownMs, result };
}

describe('a worker shutting down while a model request streams', () => {
  test('is not held by calls whose hand-over waits for a workflow task nobody takes; another worker finishes the turn', async () => {
    // The call completes after the shutdown began and before the grace time is over: its Update
    // needs a workflow task the draining worker will not take.
    const { shutdownMs, result } = await shutDownMidRequest({ callDelayMs: 500, graceMs: 3_000 });
    // Grace time, then the cancelled request lets go (it used to wait minutes, until the server gave up).
    expect(shutdownMs).toBeLessThan(20_000);
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual([
      expect.objectContaining({ toolCallId: 'a', status: 'ok', content: 'echo 1' }),
    ]);
    expect(result.text).toBe('done');
  }, 120_000);

  test('a request cut off by the end of the grace time is retried elsewhere, not recorded as a failed model', async () => {
    const { result } = await shutDownMidRequest({ callDelayMs: 2_500, graceMs: 1_000 });
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual([
      expect.objectContaining({ toolCallId: 'a', status: 'ok', content: 'echo 1' }),
    ]);
  }, 120_000);
});
