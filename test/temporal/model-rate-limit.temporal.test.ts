import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { defineTool, scriptedModel } from 'durable-turns';
import { z } from 'zod';
import { modelTaskQueue } from '../../contract/activities';
import { uniqueTurnId } from '../conformance/support';
import { openAiErrorReply, startOpenAiChatServer } from '../support/models/openai-chat-server';
import type { TestServer } from '../support/models/recording-server';
import { testTemporal } from '../support/temporal-env';
import { TemporalKit } from './support/kit';
import { WorkerProcesses } from './support/worker-process';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());
const processes = new WorkerProcesses();
let server: TestServer | undefined;
afterEach(async () => {
  processes.killAll();
  await server?.close();
  server = undefined;
});

/** The provider's own limit: more than this many requests in any second are refused with a 429. */
const PROVIDER_PER_SECOND = 6;
/** The fleet's limit, well under the provider's. */
const LIMIT_PER_SECOND = 2;
const TURNS = 10;

/**
 * A provider that counts what it answered in the last second, as a real one does per API key: past
 * its rate it answers 429 with a Retry-After, whichever host sent the request.
 */
function rateLimitedProvider() {
  const answered: number[] = [];
  const refused: number[] = [];
  const started = startOpenAiChatServer(() => {
    const now = Date.now();
    if (answered.filter((t) => t > now - 1_000).length >= PROVIDER_PER_SECOND) {
      refused.push(now);
      return openAiErrorReply({
        status: 429,
        message: 'Rate limit reached for requests',
        type: 'rate_limit_exceeded',
        headers: { 'retry-after': '1' },
      });
    }
    answered.push(now);
    return { kind: 'stream', text: ['ok'] };
  });
  return { started, answered, refused };
}

describe('fleet-wide model rate limits', () => {
  test('two worker processes with the same limit send a model’s requests at no more than its rate: a provider that refuses past three times that rate refuses none, and every turn completes', async () => {
    const provider = rateLimitedProvider();
    server = await provider.started;
    const { address, namespace } = testTemporal();
    const taskQueue = kit.taskQueue('model-limit');
    await Promise.all(
      ['worker-a', 'worker-b'].map((identity) =>
        processes.start({
          script: path.join(__dirname, 'support/rate-limited-worker.ts'),
          args: [address, namespace, taskQueue, identity, server?.baseURL ?? '', String(LIMIT_PER_SECOND)],
          label: identity,
        }),
      ),
    );
    const client = kit.client(taskQueue);
    const turnIds = Array.from({ length: TURNS }, () => uniqueTurnId('limited'));
    // All at once, as a burst of users would.
    const turns = await Promise.all(
      turnIds.map((turnId) => client.start({ turnId, input: 'hi', model: 'limited' })),
    );
    const results = await Promise.all(turns.map((turn) => turn.result()));

    expect(results.map((r) => [r.status, r.text])).toEqual(turnIds.map(() => ['completed', 'ok']));
    expect(provider.refused).toEqual([]);
    expect(provider.answered).toHaveLength(TURNS);
    // The server spread them: at LIMIT_PER_SECOND, TURNS requests need (TURNS − burst) / rate
    // seconds; a burst of up to one second's worth is allowed for.
    const spreadMs = Math.max(...provider.answered) - Math.min(...provider.answered);
    expect(spreadMs).toBeGreaterThanOrEqual(((TURNS - 2 * LIMIT_PER_SECOND) / LIMIT_PER_SECOND) * 1_000);

    // Each turn's first request reached the turn's queue and was sent on; it asked on the model's
    // queue from then on.
    const history = await client.client.workflow.getHandle(turnIds[0] ?? '').fetchHistory();
    const queues = (history.events ?? [])
      .filter((e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
      .map((e) => e.activityTaskScheduledEventAttributes)
      .filter((a) => a?.activityType?.name === 'callModel')
      .map((a) => a?.taskQueue?.name);
    expect(queues).toEqual([taskQueue, modelTaskQueue({ taskQueue, model: 'limited' })]);
  }, 240_000);

  test("a rate-limited model's summary requests go to its queue as its requests do", async () => {
    const taskQueue = kit.taskQueue('limited-compaction');
    const model = scriptedModel(
      [
        { toolCalls: [{ id: 'n1', name: 'note', args: {} }] },
        // A large context: the request after this one compacts first (what came before this response).
        { toolCalls: [{ id: 'n2', name: 'note', args: {} }], usage: { inputTokens: 900, outputTokens: 200 } },
        { text: 'done' },
      ],
      'limited-scripted',
    );
    const note = defineTool({
      name: 'note',
      description: 'notes',
      input: z.object({}),
      execute: () => 'noted',
    });
    const worker = await kit.worker({
      taskQueue,
      tools: [note],
      model,
      modelRateLimits: { 'limited-scripted': { requestsPerSecond: 50 } },
    });
    const turnId = uniqueTurnId('limited-compaction');
    const client = kit.client(taskQueue);
    const result = await worker.runUntil(async () => {
      const turn = await client.start({
        turnId,
        input: 'hi',
        model: 'limited-scripted',
        compaction: { maxContextTokens: 1_000 },
      });
      return turn.result();
    });
    expect(result.status).toBe('completed');
    expect(result.events.filter((e) => e.type === 'context.compacted')).toHaveLength(1);
    const history = await client.client.workflow.getHandle(turnId).fetchHistory();
    const scheduled = (history.events ?? [])
      .filter((e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
      .map((e) => e.activityTaskScheduledEventAttributes)
      .filter((a) => a?.activityType?.name !== 'runTool')
      .map((a) => [a?.activityType?.name, a?.taskQueue?.name]);
    const modelQueue = modelTaskQueue({ taskQueue, model: 'limited-scripted' });
    expect(scheduled).toEqual([
      ['callModel', taskQueue],
      ['callModel', modelQueue],
      ['callModel', modelQueue],
      ['compactContext', modelQueue],
      ['callModel', modelQueue],
    ]);
  });
});
