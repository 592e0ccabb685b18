import { defineTool, type ModelRequest, scriptedModel, type TurnModel } from 'durable-turns';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
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

describe('a worker shutting down while a tool runs', () => {
  /**
   * The worker's shutdown stops the tool (its signal fires), but the turn was not cancelled: that
   * the tool stopped is not its outcome. The attempt counts as lost, so a retry-safe call runs
   * again on another worker with the same key, and the other gets "outcome unknown" — never an
   * `interrupted: cancelled` output for a cancel that did not happen.
   */
  test('the stopped attempt is lost, not cancelled: the retry-safe call runs again elsewhere, the other says outcome unknown', async () => {
    const taskQueue = kit.taskQueue('shutdown-tool');
    const client = kit.client(taskQueue);
    const runs: string[] = [];
    const bothRunning = signal();
    let firstWorker = true;
    const slow = (name: string, retrySafe: boolean) =>
      defineTool({
        name,
        description: `${name} (retry-safe: ${retrySafe})`,
        input: z.object({}),
        concurrencySafe: true,
        retrySafe,
        execute: async (_args, ctx) => {
          runs.push(`${ctx.toolCallId} ${ctx.idempotencyKey}`);
          if (runs.length === 2) bothRunning.fire();
          if (!firstWorker) return `${ctx.toolCallId} done`;
          await new Promise<void>((_resolve, reject) =>
            ctx.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true }),
          );
          return 'unreachable';
        },
      });
    const tools = [slow('safe_slow', true), slow('unsafe_slow', false)];
    const model = scriptedModel([
      {
        toolCalls: [
          { id: 's', name: 'safe_slow', args: {} },
          { id: 'u', name: 'unsafe_slow', args: {} },
        ],
      },
      { text: 'done' },
    ]);
    const worker = () =>
      createTurnWorker({
        connection: kit.native,
        namespace: kit.namespace,
        taskQueue,
        tools,
        models: [model],
        worker: { shutdownGraceTime: 200 },
      });
    const turnId = uniqueTurnId('shutdown-tool');
    const turn = await client.start({
      turnId,
      input: 'go',
      model: 'scripted',
      timing: { heartbeatTimeoutMs: 2_000 },
    });
    const first = await worker();
    const running = first.run();
    await bothRunning.happened;
    first.shutdown();
    await running;
    firstWorker = false;
    const result = await (await worker()).runUntil(turn.result());
    expect(result.status).toBe('completed');
    expect(result.outputs.map((o) => [o.toolCallId, o.status, o.errorType ?? null])).toEqual([
      ['s', 'ok', null],
      ['u', 'interrupted', 'outcome-unknown'],
    ]);
    expect(runs.sort()).toEqual([`s ${turnId}/s`, `s ${turnId}/s`, `u ${turnId}/u`]);
  }, 120_000);
});
