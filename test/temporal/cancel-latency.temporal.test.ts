import { defineTool, scriptedModel } from 'durable-turns';
import { heartbeatThrottleMs } from 'durable-turns/worker';
import { z } from 'zod';
import { heartbeatCadenceMs } from '../../activities/create-activities';
import { sleep, uniqueTurnId } from '../conformance/support';
import { TemporalKit } from './support/kit';
import { pollFor } from './support/poll';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

/**
 * A cancel reaches a running tool only in a heartbeat's response, and the SDK holds heartbeats
 * back for up to its throttle interval (by default 0.8 × the heartbeat timeout: ~8 s with 10 s).
 * The worker sets the throttle to `heartbeatThrottleMs` and the activity heartbeats every
 * `heartbeatCadenceMs`, so the delay is bounded by those plus the server's round trips: the
 * cancel's workflow task and the heartbeat that carries it. Those round trips are measured here,
 * on this server, now, rather than guessed.
 */
test('a cancel reaches a running tool within the heartbeat throttle and cadence plus the measured round trips', async () => {
  let abortedAt: number | undefined;
  let running = false;
  const waits = defineTool({
    name: 'waits',
    description: 'Runs until cancelled',
    input: z.object({}),
    execute: async (_args, ctx) => {
      running = true;
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener(
          'abort',
          () => {
            abortedAt = Date.now();
            resolve();
          },
          { once: true },
        ),
      );
      throw new Error('stopped by the cancel');
    },
  });
  const taskQueue = kit.taskQueue('cancel-latency');
  const worker = await kit.worker({
    taskQueue,
    tools: [waits],
    model: scriptedModel([{ toolCalls: [{ id: 'w', name: 'waits', args: {} }] }, { text: 'never' }]),
  });
  await worker.runUntil(async () => {
    // A heartbeat timeout far above the bound: a delay near 0.8 × this would mean the throttle is not set.
    const turn = await kit.client(taskQueue).start({
      turnId: uniqueTurnId('cancel-latency'),
      input: 'go',
      model: 'scripted',
      timing: { heartbeatTimeoutMs: 30_000 },
    });
    await pollFor('the tool to run', async () => (running ? true : undefined));
    // Let a heartbeat or two go by, so the throttle window is in its steady state.
    await sleep(2 * heartbeatThrottleMs);
    // A query is a workflow task's round trip through the server: the slowest of a few, measured now.
    let roundTripMs = 0;
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      await turn.state();
      roundTripMs = Math.max(roundTripMs, Date.now() - started);
    }
    const cancelledAt = Date.now();
    await turn.cancel();
    const result = await turn.result();
    expect(result.status).toBe('cancelled');
    expect(abortedAt).toBeDefined();
    const delay = (abortedAt ?? Number.POSITIVE_INFINITY) - cancelledAt;
    // The cancel request, its workflow task, the activity's cancel request, the heartbeat carrying it.
    const bound = heartbeatThrottleMs + heartbeatCadenceMs + 4 * roundTripMs;
    if (process.env.CANCEL_REPORT) console.log({ delay, bound, roundTripMs });
    expect(delay).toBeLessThanOrEqual(bound);
    expect(result.outputs).toMatchObject([{ toolCallId: 'w', status: 'interrupted' }]);
  });
});
