import { temporal } from '@temporalio/proto';
import { createModel, retryPolicySchema } from 'durable-turns';
import type { TurnClient, TurnHandle } from 'durable-turns/client';
import { z } from 'zod';
import { TemporalKit } from '../temporal/support/kit';
import { fuzzSeed } from './fuzz-seed';
import { type FuzzServer, startFuzzServer } from './fuzz-server';
import { fuzzTools } from './fuzz-tools';
import { type KnownGap, runFuzz } from './run-fuzz';

const seed = fuzzSeed();
const positive = z.coerce.number().int().positive();
/** Fewer than in process: a Temporal turn costs workflow tasks and activity round trips. */
const caseCount = positive.default(80).parse(process.env.FUZZ_CASES || undefined);
/** Turns in flight at once (`FUZZ_CONCURRENCY`). */
const concurrency = positive.default(8).parse(process.env.FUZZ_CONCURRENCY || undefined);
/** The same small delays as in process: the fuzz is about which answers are retried, not about waiting. */
const modelRetry = retryPolicySchema.parse({
  maxAttempts: 3,
  initialDelayMs: 1,
  backoffCoefficient: 2,
  maxDelayMs: 4,
});
/** A model stream that stops heartbeating this long counts as lost (default 10 s). */
const heartbeatTimeoutMs = 5_000;

/**
 * What a stuck turn was doing, for the failure's investigation: what the fuzz server answered it,
 * its pending activities and the last events of its history.
 */
async function stuckTurnReport(client: TurnClient, server: FuzzServer, turnId: string): Promise<string> {
  const served = server
    .served(turnId)
    .map((r) => `#${r.responseIndex} ${r.scripted ? r.reply.label : 'closing answer'}`);
  const handle = client.client.workflow.getHandle(turnId);
  const [description, history] = await Promise.all([handle.describe(), handle.fetchHistory()]);
  const pending = (description.raw.pendingActivities ?? []).map(
    (a) =>
      `${a.activityType?.name} #${a.activityId} attempt ${a.attempt} ${temporal.api.enums.v1.PendingActivityState[a.state ?? 0]}`,
  );
  const events = (history.events ?? []).slice(-12).map((e) => {
    const at = Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);
    return `${new Date(at).toISOString()} ${temporal.api.enums.v1.EventType[e.eventType ?? 0]}`;
  });
  return [
    `stuck turn ${turnId}: ${description.status.name}, ${history.events?.length ?? 0} events`,
    `  served so far: ${served.join(', ') || 'nothing'}`,
    `  pending activities: ${pending.join('; ') || 'none'}`,
    ...events.map((e) => `  ${e}`),
  ].join('\n');
}

/** Slow or stuck: whether the turn still ends within a grace period past its bound (it is cancelled if not). */
async function lateEnd(turn: TurnHandle): Promise<string> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    turn.result().then((r) => `it ended ${r.status} ${Date.now() - started} ms past its bound`),
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), stuckGraceMs);
    }),
  ]);
  clearTimeout(timer);
  if (ended) return ended;
  await turn.cancel().catch(() => {});
  return `still running ${stuckGraceMs} ms past its bound; cancelled`;
}
const stuckGraceMs = 20_000;

/** Problems owned elsewhere, counted instead of failed (see `KnownGap`). None today. */
const knownGaps: readonly KnownGap[] = [];

/**
 * The in-process provider fuzz (provider-fuzz.test.ts), through a real worker: the same seeded
 * malformed OpenAI-compatible streams, served over HTTP to the model activity, the turns started
 * with `TurnClient`, and the same assertions on each result. `FUZZ_SEED` replays a run,
 * `FUZZ_CASES` and `FUZZ_CONCURRENCY` change its size, `FUZZ_REPORT=1` prints the outcome counts.
 */
describe(`the provider path on Temporal under fuzzed streams (FUZZ_SEED=${seed})`, () => {
  const kit = new TemporalKit();
  let server: FuzzServer;
  beforeAll(async () => {
    await kit.open();
    server = await startFuzzServer();
  });
  afterAll(async () => {
    await server?.close();
    await kit.close();
  });

  it(`ends each of ${caseCount} turns (${concurrency} at a time) completed, or failed for a reason naming the answer, with a valid transcript`, async () => {
    const model = createModel({
      provider: 'openai-compatible',
      name: 'fuzz',
      model: 'fuzz-model',
      baseURL: server.baseURL,
    });
    const taskQueue = kit.taskQueue('provider-fuzz');
    const worker = await kit.worker({ taskQueue, tools: fuzzTools, model });
    const client = kit.client(taskQueue);
    const reports: Promise<string>[] = [];
    const run = await worker.runUntil(
      runFuzz({
        seed,
        count: caseCount,
        server,
        modelRetry,
        knownGaps,
        concurrency,
        replay: 'npx jest --selectProjects temporal -- test/fuzz/provider-fuzz.temporal.test.ts',
        runTurn: async (fuzzCase, signal) => {
          const turn = await client.start({
            turnId: fuzzCase.turnId,
            input: fuzzCase.input,
            model: 'fuzz',
            modelRetry,
            timing: { heartbeatTimeoutMs },
          });
          // A stuck turn is reported, given a grace period (slow or stuck?), then cancelled so the
          // worker can shut down at the end of the run.
          signal.addEventListener(
            'abort',
            () => {
              const report = stuckTurnReport(client, server, fuzzCase.turnId)
                .then(async (text) => `${text}\n  afterwards: ${await lateEnd(turn)}`)
                .catch((e: unknown) => `report failed: ${e}`);
              reports.push(report);
            },
            { once: true },
          );
          return turn.result();
        },
      }),
    );
    for (const report of await Promise.all(reports)) process.stderr.write(`${report}\n`);
    if (process.env.FUZZ_REPORT) {
      const lines = [...run.outcomes].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `  ${k}: ${n}`);
      process.stdout.write(
        `provider fuzz on Temporal FUZZ_SEED=${seed}: ${caseCount} turns, ${concurrency} at a time, in ${run.elapsedMs} ms\n${lines.join('\n')}\n`,
      );
    }
    expect(run.failures).toEqual([]);
  }, 180_000);
});
