/**
 * Design (a) of bench/live-text.ts: Temporal's Workflow Streams contrib (1.23.0) as published,
 * bundled by the 1.24 worker durable-turns uses. A turn-shaped workflow (5 activities one after
 * another, each streaming 100 deltas of 20 chars every 20 ms) runs once without a stream and once
 * publishing every delta through it (batched signals every 200 ms) to SUBSCRIBERS subscribers
 * (long-poll updates). Prints one JSON line: the history each run cost, what the stream added,
 * the delta latency one subscriber saw, and what the bundle holds.
 *
 *   TEMPORAL_ADDRESS=localhost:7233 SUBSCRIBERS=1 node run.cjs
 */
const { Worker, NativeConnection, bundleWorkflowCode } = require('@temporalio/worker');
const { Client, Connection } = require('@temporalio/client');
const activity = require('@temporalio/activity');
const { WorkflowStreamClient } = require('@temporalio/workflow-streams/client');
const { temporal } = require('@temporalio/proto');

const address = process.env.TEMPORAL_ADDRESS ?? 'localhost:7233';
const RESPONSES = 5;
const DELTAS = 100;
const DELTA_CHARS = 20;
const DELTA_MS = 20;
const SUBSCRIBERS = Number(process.env.SUBSCRIBERS ?? 1);
const EventType = temporal.api.enums.v1.EventType;
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
/** When each delta (by id) was published. */
const emitted = new Map();
const notes = new Set();

async function streamResponse({ index, withStream }) {
  const ctx = activity.Context.current();
  const publisher = withStream
    ? WorkflowStreamClient.fromWithinActivity({ batchInterval: '200 milliseconds' })
    : undefined;
  const topic = publisher?.topic('text');
  for (let d = 0; d < DELTAS; d++) {
    await new Promise((resolve) => setTimeout(resolve, DELTA_MS));
    const id = `${index}:${d}`;
    emitted.set(id, performance.now());
    topic?.publish({ id, delta: `${'x'.repeat(DELTA_CHARS - 1)} ` });
    ctx.heartbeat();
  }
  if (publisher) await publisher[Symbol.asyncDispose]();
  return 'done';
}

/**
 * While the subscribers poll, 20 quick updates (like a call hand-over), one every 100 ms: how long
 * each took to be answered, and which failed (the client retries a refused update until it is
 * admitted or the workflow ends).
 */
async function probeUpdates(handle) {
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const took = [];
  const errors = new Set();
  let failed = 0;
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    try {
      await handle.executeUpdate('probe', { args: [] });
    } catch (error) {
      failed += 1;
      errors.add(String(error?.cause?.message ?? error?.message ?? error).slice(0, 200));
    }
    took.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  took.sort((a, b) => a - b);
  return {
    attempts: took.length,
    failed,
    medianMs: Math.round(took[Math.floor(took.length / 2)]),
    maxMs: Math.round(took.at(-1)),
    errors: [...errors],
  };
}

async function main() {
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./workflows.cjs'),
    logger: quiet,
  });
  const copies = [
    ...new Set(bundle.code.match(/node_modules\/[@\w/.-]*?@temporalio\/workflow\/lib\/workflow\.js/g) ?? []),
  ];
  const native = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const taskQueue = `workflow-streams-${process.pid}`;
  const worker = await Worker.create({
    connection: native,
    taskQueue,
    workflowBundle: bundle,
    activities: { streamResponse },
  });
  const run = async (withStream, { probe = false } = {}) => {
    const workflowId = `workflow-streams-${withStream ? SUBSCRIBERS : 0}-${Date.now()}`;
    const handle = await client.workflow.start('streamsTurn', {
      taskQueue,
      workflowId,
      args: [{ responses: RESPONSES, withStream }],
    });
    const latencies = [];
    const last = `${RESPONSES - 1}:${DELTAS - 1}`;
    const subscribers = withStream
      ? Array.from({ length: SUBSCRIBERS }, async (_, s) => {
          const topic = WorkflowStreamClient.create(client, workflowId).topic('text');
          try {
            for await (const item of topic.subscribe(0)) {
              if (s === 0) latencies.push(performance.now() - emitted.get(item.data.id));
              if (item.data.id === last) break;
            }
          } catch (error) {
            notes.add(`subscriber: ${error.message}`);
          }
        })
      : [];
    const probed = probe ? await probeUpdates(handle) : undefined;
    await handle.result();
    await Promise.race([Promise.all(subscribers), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    const history = await handle.fetchHistory();
    const count = (type) => history.events.filter((e) => e.eventType === type).length;
    return {
      events: history.events.length,
      bytes: temporal.api.history.v1.History.encode(history).finish().length,
      signals: count(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED),
      updates: count(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED),
      workflowTasks: count(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED),
      latencies,
      ...(probed ? { probe: probed } : {}),
    };
  };
  const out = { design: '@temporalio/workflow-streams 1.23.0', subscribers: SUBSCRIBERS };
  await worker.runUntil(async () => {
    const plain = await run(false);
    const streamed = await run(true);
    const sorted = streamed.latencies.sort((a, b) => a - b);
    const at = (p) =>
      Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN);
    out.baseline = { events: plain.events, bytes: plain.bytes };
    const { latencies: _latencies, ...counts } = streamed;
    out.withStream = counts;
    out.added = { events: streamed.events - plain.events, bytes: streamed.bytes - plain.bytes };
    out.handOverWhileSubscribed = (await run(true, { probe: true })).probe;
    out.latencyMs = {
      samples: sorted.length,
      p50: at(0.5),
      p90: at(0.9),
      max: Math.round(sorted.at(-1) ?? Number.NaN),
    };
  });
  out.bundle = { workflowPackageCopies: copies.length, copies };
  out.notes = [...notes];
  await connection.close();
  await native.close();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((error) => {
  process.stdout.write(`${JSON.stringify({ error: String(error?.stack ?? error) })}\n`);
  process.exit(1);
});
