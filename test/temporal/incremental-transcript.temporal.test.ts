import { createHash } from 'node:crypto';
import { defineTool, type ModelRequest, scriptedModel, type TurnModel } from 'durable-turns';
import { createTurnWorker, TranscriptCache } from 'durable-turns/worker';
import { z } from 'zod';
import { resultInlineMaxChars, type TurnWorkflowResult } from '../../contract/turn-workflow';

/** A concurrency-safe tool `bulky` that answers call `n` with `text(n)` (cut to the output cap). */
const bulkyTool = (text: (n: number) => string) =>
  defineTool({
    name: 'bulky',
    description: 'Answers with a long text',
    input: z.object({ n: z.number() }),
    concurrencySafe: true,
    execute: ({ n }) => text(n),
  });

/** Text of `chars` characters that compresses little (base64 of hashes), different for each `n`. */
function noise(n: number, chars: number): string {
  let text = '';
  for (let i = 0; text.length < chars; i++) text += createHash('sha256').update(`${n}:${i}`).digest('base64');
  return text.slice(0, chars);
}

/** `responses` responses of `perResponse` calls of `tool` each (call n = r × perResponse + i), then `last`. */
function stepByStep({
  responses,
  perResponse,
  tool,
  last,
}: {
  responses: number;
  perResponse: number;
  tool: string;
  last: string;
}) {
  return scriptedModel([
    ...Array.from({ length: responses }, (_, r) => ({
      text: `step ${r}`,
      toolCalls: Array.from({ length: perResponse }, (_, i) => ({
        id: `c${r}_${i}`,
        name: tool,
        args: { n: r * perResponse + i },
      })),
    })),
    { text: last },
  ]);
}

import { modelRequestQuery } from '../../contract/turn-workflow';
import { uniqueTurnId } from '../conformance/support';
import { echoTool as echo } from '../support/echo-tool';
import { signal } from '../support/signal';
import { TemporalKit } from './support/kit';
import { collect } from './support/poll';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const responses = 14;
const perResponse = 5;

describe('model requests get their transcript without a read per request', () => {
  test('every request gets exactly the messages a full read gives, sent with it or read once: across continue-as-new, and on a fresh worker with an empty cache', async () => {
    const taskQueue = kit.taskQueue('incremental-transcript');
    const scripted = stepByStep({ responses, perResponse, tool: 'echo', last: 'all done' });
    const client = kit.client(taskQueue);
    const compared: { responseIndex: number; same: boolean; messages: number }[] = [];
    const halfway = signal();
    // Before answering, the model asks the workflow for the whole transcript itself and compares.
    const model: TurnModel = {
      name: 'scripted',
      async *stream(request: ModelRequest) {
        const full = await client.client.workflow
          .getHandle(request.turnId)
          .query(modelRequestQuery, request.responseIndex);
        expect(full?.messagesFrom).toBe(0);
        compared.push({
          responseIndex: request.responseIndex,
          same: JSON.stringify(full?.messages) === JSON.stringify(request.messages),
          messages: request.messages.length,
        });
        yield* scripted.stream(request);
        if (request.responseIndex === Math.floor(responses / 2)) halfway.fire();
      },
    };
    const worker = (transcripts: TranscriptCache) =>
      createTurnWorker({
        connection: kit.native,
        namespace: kit.namespace,
        taskQueue,
        tools: [echo],
        models: [model],
        transcripts,
        // Let a model request or tool call in flight at the hand-over finish on the first worker.
        worker: { shutdownGraceTime: '10s' },
      });

    const turnId = uniqueTurnId('incremental');
    const turn = await client.start({
      turnId,
      input: 'step by step',
      model: 'scripted',
      dispatch: { maxConcurrency: perResponse },
      continueAsNewAfterEvents: 120,
    });
    const first = new TranscriptCache();
    const firstStopped = (await worker(first)).runUntil(halfway.happened);
    await halfway.happened;
    // The rest of the turn runs on a worker that has read nothing of it yet. It starts before the
    // first one has stopped: that one's last model request waits for its hand-over Update, which
    // needs a workflow worker.
    const fresh = new TranscriptCache();
    const result = await (await worker(fresh)).runUntil(async () => {
      await firstStopped;
      return turn.result();
    });

    expect(result.status).toBe('completed');
    expect(result.text).toBe('all done');
    expect(result.outputs.map((o) => o.content)).toEqual(
      Array.from({ length: responses * perResponse }, (_, n) => `echo ${n}`),
    );
    expect(compared.filter((c) => !c.same)).toEqual([]);
    expect(compared.map((c) => c.responseIndex)).toEqual(
      expect.arrayContaining(Array.from({ length: responses + 1 }, (_, r) => r)),
    );
    const runs = await collect(client.client.workflow.list({ query: `WorkflowId = '${turnId}'` }));
    process.stderr.write(
      `[incremental-transcript] ${runs.length} runs; reads on the first worker ${JSON.stringify(first.reads)}, on the fresh one ${JSON.stringify(fresh.reads)}\n`,
    );
    expect(runs.length).toBeGreaterThan(2);
    // A request's context came with it whenever its worker held the previous request's, as the
    // first worker did from the turn's first request on (a small context then is whole), across
    // continue-as-new too (a new run's first request sends its whole, still small, transcript). The
    // fresh worker held nothing: it read the transcript by query once, then got it sent.
    const all = (key: keyof TranscriptCache['reads']) => first.reads[key] + fresh.reads[key];
    expect(first.reads.full).toBe(0);
    expect(fresh.reads.full).toBeLessThanOrEqual(1);
    expect(all('incremental')).toBe(0);
    expect(all('inline')).toBeGreaterThanOrEqual(responses);
    expect(all('full') + all('inline')).toBeGreaterThanOrEqual(responses + 1);
  }, 180_000);

  test('a wave too large to travel with its request reaches the worker that runs the turn before the request begins: no request there asks its workflow anything, and each gets exactly what a full read gives', async () => {
    const taskQueue = kit.taskQueue('offered-transcript');
    // Four outputs of 12,000 characters a response: each wave is more than a request's input carries.
    const bulky = bulkyTool((n) => noise(n, 12_000));
    const responses = 5;
    const scripted = stepByStep({ responses, perResponse: 4, tool: 'bulky', last: 'all read' });
    const client = kit.client(taskQueue);
    const differing: number[] = [];
    const model: TurnModel = {
      name: 'scripted',
      async *stream(request: ModelRequest) {
        // The test's own full read, to compare with what the request was given.
        const full = await client.client.workflow
          .getHandle(request.turnId)
          .query(modelRequestQuery, request.responseIndex);
        if (JSON.stringify(full?.messages) !== JSON.stringify(request.messages))
          differing.push(request.responseIndex);
        yield* scripted.stream(request);
      },
    };
    const transcripts = new TranscriptCache();
    const worker = await createTurnWorker({
      connection: kit.native,
      namespace: kit.namespace,
      taskQueue,
      tools: [bulky],
      models: [model],
      transcripts,
      fleetHealth: false,
    });
    const result = await worker.runUntil(async () => {
      const turn = await client.start({
        turnId: uniqueTurnId('offered'),
        input: 'read it all',
        model: 'scripted',
        dispatch: { maxConcurrency: 4 },
      });
      return turn.result();
    });
    expect(result.status).toBe('completed');
    expect(result.outputs).toHaveLength(responses * 4);
    expect(differing).toEqual([]);
    // The first request's small context came with it; every later one was handed over by sink.
    // Before, each of those read its wave by query (`incremental`), a round trip through the
    // worker's sticky queue that the server gives up on only after 10 s.
    expect(transcripts.reads).toEqual({ full: 0, incremental: 0, inline: 1, offered: responses });
  }, 120_000);

  test("a turn past the server's 2 MB payload limit: a worker that holds none of its transcript reads it in pages, a watcher reads its journal in pages, and its result comes in pages too (the server terminated such a turn at its end)", async () => {
    const taskQueue = kit.taskQueue('paged-transcript');
    // Outputs at the default cap (256 KiB each), four a response, of text that compresses little:
    // the transcript passes the limit at the third request, and the whole turn packed is more than
    // a workflow's result may carry.
    const bulky = bulkyTool((n) => `é漢"${noise(n, 300_000)}`);
    const responses = 3;
    const scripted = stepByStep({ responses, perResponse: 4, tool: 'bulky', last: 'all read' });
    const seen: number[] = [];
    const model: TurnModel = {
      name: 'scripted',
      async *stream(request: ModelRequest) {
        seen.push(Buffer.byteLength(JSON.stringify(request.messages)));
        yield* scripted.stream(request);
      },
    };
    // Holds no turn: every request reads its whole transcript, as a fresh worker's first would.
    const transcripts = new TranscriptCache({ maxTurns: 0 });
    const worker = await createTurnWorker({
      connection: kit.native,
      namespace: kit.namespace,
      taskQueue,
      tools: [bulky],
      models: [model],
      transcripts,
      fleetHealth: false,
    });
    const client = kit.client(taskQueue);
    const { result, watched } = await worker.runUntil(async () => {
      const turn = await client.start({
        turnId: uniqueTurnId('paged'),
        input: 'read it all',
        model: 'scripted',
        dispatch: { maxConcurrency: 4 },
      });
      const [result, watched] = await Promise.all([turn.result(), collect(turn.watch({ live: false }))]);
      return { result, watched };
    });
    // A watcher reads the same outputs from the workflow's journal, more than a query may answer.
    const completed = watched.filter((e) => e.kind === 'entry' && e.entry.type === 'tool.completed');
    expect(completed).toHaveLength(responses * 4);
    // Completed, not terminated by the server for a result over its payload limit: the result
    // names the packed transcript's length, and the client reads it by query.
    expect(result.status).toBe('completed');
    expect(result.text).toBe('all read');
    expect(result.outputs.map((o) => String(o.content).slice(0, 1_000))).toEqual(
      Array.from({ length: responses * 4 }, (_, n) => `é漢"${noise(n, 300_000)}`.slice(0, 1_000)),
    );
    const completedRun = (await client.client.workflow
      .getHandle(result.turnId)
      .result()) as TurnWorkflowResult;
    expect(completedRun.packed).toBe('');
    expect(completedRun.packedLength).toBeGreaterThan(resultInlineMaxChars);
    // The first request's small context came with it; every later one was read whole.
    expect(transcripts.reads).toEqual({ full: responses, incremental: 0, inline: 1, offered: 0 });
    // The last request read every output whole: more than the limit in bytes.
    expect(seen).toHaveLength(responses + 1);
    expect(seen.at(-1)).toBeGreaterThan(2 * 1024 * 1024);
  }, 180_000);
});

describe('a turn too large to carry into a new run', () => {
  test('continues as new while its transcript fits the input, then goes on in its run and completes (the server terminated it)', async () => {
    const taskQueue = kit.taskQueue('carry-too-large');
    const bulky = bulkyTool((n) => noise(n, 300_000));
    // Three outputs at the 256 KiB cap a response, of text that compresses little: about 1.05 M
    // characters packed a response, so the first continue-as-new fits and the next one does not.
    // (Kept small: packing megabytes in the workflow sandbox is slow, and under two CPU burners a
    // 4 MB turn's final workflow task passed the sandbox's 5 s limit.)
    const responses = 3;
    const scripted = stepByStep({ responses, perResponse: 3, tool: 'bulky', last: 'all kept' });
    const worker = await kit.worker({ taskQueue, tools: [bulky], model: scripted });
    const client = kit.client(taskQueue);
    const turnId = uniqueTurnId('carry');
    const result = await worker.runUntil(async () => {
      const turn = await client.start({
        turnId,
        input: 'keep it all',
        model: 'scripted',
        dispatch: { maxConcurrency: 3 },
        continueAsNewAfterEvents: 15,
      });
      return turn.result();
    });
    expect(result.status).toBe('completed');
    expect(result.text).toBe('all kept');
    expect(result.outputs.map((o) => String(o.content).slice(0, 100))).toEqual(
      Array.from({ length: responses * 3 }, (_, n) => noise(n, 100)),
    );
    // Continue-as-new is due after every wave: it happened while the transcript fitted, then the
    // last run took more than one request, past a point where it was due.
    const runs = await collect(client.client.workflow.list({ query: `WorkflowId = '${turnId}'` }));
    expect(runs.filter((r) => r.status.name === 'CONTINUED_AS_NEW').length).toBeGreaterThan(0);
    const last = runs.find((r) => r.status.name === 'COMPLETED');
    const lastEvents =
      (await client.client.workflow.getHandle(turnId, last?.runId).fetchHistory()).events ?? [];
    const requests = lastEvents.filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
    );
    expect(requests.length).toBeGreaterThan(1);
  }, 180_000);
});
