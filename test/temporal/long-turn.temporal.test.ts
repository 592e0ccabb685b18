import { randomBytes } from 'node:crypto';
import { defineTool, scriptedModel } from 'durable-turns';
import { z } from 'zod';
import { uniqueTurnId } from '../conformance/support';
import { eventBytes, type HistoryEvent, isWorkflowTaskEvent } from '../support/history-events';
import { TemporalKit } from './support/kit';
import { collect } from './support/poll';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const noop = defineTool({
  name: 'noop',
  description: 'Does nothing, at once',
  input: z.object({ n: z.number() }),
  concurrencySafe: true,
  execute: ({ n }) => `ok ${n}`,
});

const bigText = 'x'.repeat(3 * 1024 * 1024);
const big = defineTool({
  name: 'big',
  description: 'Returns 3 MiB of text',
  input: z.object({}),
  execute: () => bigText,
});

/** 200 KB of text that does not compress much (base64 of random bytes), different on every call. */
const noise = defineTool({
  name: 'noise',
  description: 'Returns 200 KB of random text',
  input: z.object({}),
  execute: () => randomBytes(150 * 1024).toString('base64'),
});

/** Bytes of the activity input payloads of one scheduled activity, as history stores them. */
function inputBytes(event: HistoryEvent): number {
  const payloads = event.activityTaskScheduledEventAttributes?.input?.payloads ?? [];
  return payloads.reduce((sum, p) => sum + (p.data?.length ?? 0), 0);
}

const median = (xs: readonly number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

describe('long turns', () => {
  // 2,000 calls in six or more runs: each run passes on the chunks it was given and packs its own, so
  // more runs test more of that than more calls would (5,000 calls took ~50 s of the suite's CPU).
  test('a turn of 2,000 tool calls completes across several runs (continue-as-new), with every output recorded in batch order', async () => {
    const taskQueue = kit.taskQueue('long-2000');
    const responses = 40;
    const perResponse = 50;
    const id = (r: number, i: number) => `c${r}_${i}`;
    const model = scriptedModel([
      ...Array.from({ length: responses }, (_, r) => ({
        toolCalls: Array.from({ length: perResponse }, (_, i) => ({
          id: id(r, i),
          name: 'noop',
          args: { n: r * perResponse + i },
        })),
      })),
      { text: 'all done' },
    ]);
    const worker = await kit.worker({ taskQueue, tools: [noop], model });
    const started = Date.now();
    await worker.runUntil(async () => {
      const client = kit.client(taskQueue);
      const turnId = uniqueTurnId('long-2000');
      const turn = await client.start({
        turnId,
        input: 'do two thousand things',
        model: 'scripted',
        dispatch: { maxConcurrency: 50 },
        continueAsNewAfterEvents: 1_000,
      });
      // Whether or not the turn succeeds, first check what its runs were (it says more on a failure).
      const ended = await turn.result().then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      const seconds = (Date.now() - started) / 1000;
      const runs = await collect(client.client.workflow.list({ query: `WorkflowId = '${turnId}'` }));
      process.stderr.write(
        `[long-turn] 2,000 tool calls took ${seconds.toFixed(1)} s in ${runs.length} runs\n`,
      );
      expect(runs.length).toBeGreaterThanOrEqual(6);
      expect(runs.filter((r) => r.status.name === 'CONTINUED_AS_NEW').length).toBe(runs.length - 1);
      const firstRun = [...runs].sort((a, b) => a.startTime.getTime() - b.startTime.getTime())[0];
      const firstHistory = await client.client.workflow.getHandle(turnId, firstRun?.runId).fetchHistory();
      expect(firstHistory.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();

      if ('error' in ended) throw ended.error;
      const result = ended.value;
      expect(result.status).toBe('completed');
      expect(result.text).toBe('all done');
      expect(result.toolCalls).toBe(responses * perResponse);
      expect(result.modelResponses).toBe(responses + 1);
      const expectedIds = Array.from({ length: responses }, (_, r) =>
        Array.from({ length: perResponse }, (_, i) => id(r, i)),
      ).flat();
      expect(result.outputs.map((o) => o.toolCallId)).toEqual(expectedIds);
      expect(result.outputs.every((o) => o.status === 'ok')).toBe(true);
      expect(result.outputs[1_999]?.content).toBe('ok 1999');
      const completed = result.events.filter((e) => e.type === 'tool.completed');
      expect(completed.map((e) => e.toolCallId)).toEqual(expectedIds);
    });
  }, 900_000);

  test('history grows with new content only: model requests carry no transcript and each step adds the same bytes at the end as at the start', async () => {
    const taskQueue = kit.taskQueue('history-growth');
    const steps = 60;
    const model = scriptedModel([
      ...Array.from({ length: steps }, (_, r) => ({
        text: 'next',
        toolCalls: [{ id: `s${String(r).padStart(3, '0')}`, name: 'noop', args: { n: 1_000 + r } }],
      })),
      { text: 'done' },
    ]);
    const worker = await kit.worker({ taskQueue, tools: [noop], model });
    await worker.runUntil(async () => {
      const client = kit.client(taskQueue);
      const turnId = uniqueTurnId('history-growth');
      const turn = await client.start({ turnId, input: 'step by step', model: 'scripted' });
      const result = await turn.result();
      expect(result.status).toBe('completed');
      expect(result.toolCalls).toBe(steps);

      const events = (await client.client.workflow.getHandle(turnId).fetchHistory()).events ?? [];
      const modelSchedules = events
        .map((event, index) => ({ event, index }))
        .filter(
          ({ event }) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
        );
      expect(modelSchedules).toHaveLength(steps + 1);

      const requestBytes = modelSchedules.map(({ event }) => inputBytes(event));
      const [at10, at50] = [requestBytes[10] ?? 0, requestBytes[50] ?? 0];
      // Bytes of history between one model request being scheduled and the next, without the
      // workflow tasks' own events: how many tasks a step takes depends on timing (each one more is
      // ~385 B of bookkeeping and no content), which made this comparison flaky under load.
      const stepBytes = modelSchedules.slice(1).map(({ index }, i) => {
        const from = modelSchedules[i]?.index ?? 0;
        return events
          .slice(from, index)
          .filter((e) => !isWorkflowTaskEvent(e))
          .reduce((sum, e) => sum + eventBytes(e), 0);
      });
      // Medians, so that one odd step does not decide the comparison either.
      const early = median(stepBytes.slice(2, 12));
      const late = median(stepBytes.slice(steps - 12, steps - 2));
      const totalBytes = events.reduce((sum, e) => sum + eventBytes(e), 0);
      process.stderr.write(
        `[long-turn] callModel input: request 10 = ${at10} B, request 50 = ${at50} B; ` +
          `history per step: steps 2-11 median ${early.toFixed(0)} B, steps ${steps - 12}-${steps - 3} median ${late.toFixed(0)} B; ` +
          `whole history ${events.length} events, ${totalBytes} B\n`,
      );
      expect(Math.abs(at50 - at10)).toBeLessThanOrEqual(at10 * 0.1);
      expect(Math.abs(late - early)).toBeLessThanOrEqual(early * 0.1);
    });
  }, 180_000);

  test('an output larger than the limit is cut with an explicit truncation marker and the turn completes', async () => {
    const taskQueue = kit.taskQueue('truncate');
    const model = scriptedModel([
      { toolCalls: [{ id: 'huge', name: 'big', args: {} }] },
      { text: 'read it' },
    ]);
    const worker = await kit.worker({ taskQueue, tools: [big], model });
    await worker.runUntil(async () => {
      const client = kit.client(taskQueue);
      const size = bigText.length;

      const byDefault = await (
        await client.start({ turnId: uniqueTurnId('truncate-default'), input: 'go', model: 'scripted' })
      ).result();
      expect(byDefault.status).toBe('completed');
      const cut = byDefault.outputs[0];
      expect(cut?.status).toBe('ok');
      expect(typeof cut?.content).toBe('string');
      const content = String(cut?.content);
      expect(content).toMatch(
        new RegExp(`\\[truncated: output was ${size} bytes; the first \\d+ are shown\\]$`),
      );
      expect(content.length).toBeLessThanOrEqual(256 * 1024 + 200);
      expect(content.startsWith('xxxxxxxx')).toBe(true);

      const small = await (
        await client.start({
          turnId: uniqueTurnId('truncate-small'),
          input: 'go',
          model: 'scripted',
          maxOutputBytes: 1_000,
        })
      ).result();
      expect(small.status).toBe('completed');
      expect(small.outputs[0]?.content).toBe(
        `${'x'.repeat(1_000)}\n[truncated: output was ${size} bytes; the first 1000 are shown]`,
      );
      // The model was handed the cut output, not the original.
      const handedBack = model.requests
        .filter((r) => r.responseIndex === 1)
        .map((r) => JSON.stringify(r.messages));
      expect(handedBack.every((m) => m.length < 300 * 1024 && m.includes('[truncated: output was'))).toBe(
        true,
      );
    });
  }, 120_000);

  test('three outputs cut to the default limit still fit in the turn: it completes without a payload-limit failure', async () => {
    const taskQueue = kit.taskQueue('truncate-three');
    const model = scriptedModel([
      {
        toolCalls: [
          { id: 'h1', name: 'big', args: {} },
          { id: 'h2', name: 'big', args: {} },
          { id: 'h3', name: 'big', args: {} },
        ],
      },
      { text: 'read them' },
    ]);
    const worker = await kit.worker({ taskQueue, tools: [big], model });
    await worker.runUntil(async () => {
      const turn = await kit
        .client(taskQueue)
        .start({ turnId: uniqueTurnId('truncate-three'), input: 'go', model: 'scripted' });
      const result = await turn.result();
      expect(result.status).toBe('completed');
      expect(result.outputs.map((o) => [o.toolCallId, o.status])).toEqual([
        ['h1', 'ok'],
        ['h2', 'ok'],
        ['h3', 'ok'],
      ]);
      expect(result.outputs.every((o) => String(o.content).includes('[truncated: output was'))).toBe(true);
    });
  }, 120_000);

  test('a turn whose tools return large, incompressible outputs continues as new and completes', async () => {
    const taskQueue = kit.taskQueue('large-carried');
    const calls = 6;
    const model = scriptedModel([
      ...Array.from({ length: calls }, (_, r) => ({ toolCalls: [{ id: `n${r}`, name: 'noise', args: {} }] })),
      { text: 'done' },
    ]);
    const worker = await kit.worker({ taskQueue, tools: [noise], model });
    await worker.runUntil(async () => {
      const client = kit.client(taskQueue);
      const turnId = uniqueTurnId('large-carried');
      const turn = await client.start({
        turnId,
        input: 'go',
        model: 'scripted',
        continueAsNewAfterEvents: 30,
      });
      const result = await turn.result();
      expect(result.status).toBe('completed');
      expect(result.outputs.map((o) => o.status)).toEqual(Array(calls).fill('ok'));
      expect(result.outputs.every((o) => String(o.content).length === 200 * 1024)).toBe(true);
      const runs = await collect(client.client.workflow.list({ query: `WorkflowId = '${turnId}'` }));
      expect(runs.length).toBeGreaterThan(1);
    });
  }, 120_000);

  test('an output that was cut is flagged truncated in the recorded output', async () => {
    const taskQueue = kit.taskQueue('truncate-flag');
    const model = scriptedModel([{ toolCalls: [{ id: 'huge', name: 'big', args: {} }] }, { text: 'ok' }]);
    const worker = await kit.worker({ taskQueue, tools: [big], model });
    await worker.runUntil(async () => {
      const result = await (
        await kit.client(taskQueue).start({
          turnId: uniqueTurnId('truncate-flag'),
          input: 'go',
          model: 'scripted',
          maxOutputBytes: 1_000,
        })
      ).result();
      expect(result.status).toBe('completed');
      // ToolOutput.truncated: "Set when the content was cut to keep within payload limits."
      expect(result.outputs[0]).toMatchObject({ status: 'ok', truncated: true });
    });
  });
});
