/**
 * Conversations: `npm run bench:conversation` → bench/results/conversation.json (BENCH_QUICK=1 for
 * 20 turns; BENCH_TURNS=n). On the embedded dev server, one conversation of N turns, each turn ten
 * concurrent tool calls with 4 KB outputs and a closing answer, measures what a long conversation
 * costs Temporal's history:
 * - each turn's own workflow history (events, bytes): flat across the conversation, turn 10 against
 *   the last, since a turn reads the earlier turns by reference;
 * - the conversation workflow's runs (it continues as new between turns): events and bytes per run,
 *   and the largest single event anywhere (Temporal refuses a payload over 2 MiB);
 * - the same turns carried by the caller, as before conversations: each a standalone turn whose input
 *   is the whole transcript so far, until Temporal refuses one, against the conversation's turns;
 * - time per turn, from `send` to its result, against a standalone turn doing the same work;
 * - steer latency: a message steered while a 300 ms call runs, from `send` to the request that
 *   carries it, and the time from the call's end to that request against a turn not steered.
 */
import { loadavg } from 'node:os';
import { temporal } from '@temporalio/proto';
import { defineTool, type Message, scriptedModel } from 'durable-turns';
import { ConversationClient, TurnClient } from 'durable-turns/client';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
import type { HistoryEvent } from '../test/support/history-events';
import { check, logger, machineInfo, median, round, runBench, writeReport } from './measure';
import { collect, openBenchTemporal, startWorker } from './temporal-env';

const quick = process.env.BENCH_QUICK === '1';
const TURNS = Number(process.env.BENCH_TURNS ?? (quick ? 20 : 200));
const CALLS = 10;
const OUTPUT_BYTES = 4 * 1024;
const log = logger('bench:conversation');

const blob = defineTool({
  name: 'blob',
  description: 'Returns 4 KB',
  input: z.object({ n: z.number() }),
  concurrencySafe: true,
  execute: ({ n }, { turnId }) => `${turnId} #${n} `.padEnd(OUTPUT_BYTES, '.'),
});
const model = scriptedModel([
  { toolCalls: Array.from({ length: CALLS }, (_, n) => ({ id: `c${n}`, name: 'blob', args: { n } })) },
  { text: 'done' },
]);

/** For the steer phase: when each turn's gate call started and ended, and its second request came. */
const marks = new Map<
  string,
  { callStart?: number; callEnd?: number; request?: number; steered?: boolean }
>();
const mark = (turnId: string) => marks.get(turnId) ?? marks.set(turnId, {}).get(turnId) ?? {};
const gate = defineTool({
  name: 'gate',
  description: 'Takes 300 ms',
  input: z.object({}),
  execute: async (_args, { turnId }) => {
    mark(turnId).callStart = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 300));
    mark(turnId).callEnd = Date.now();
    return 'opened';
  },
});
const steerModel = scriptedModel(
  [
    { toolCalls: [{ id: 'g', name: 'gate', args: {} }] },
    (request) => {
      const last = request.messages.at(-1);
      Object.assign(mark(request.turnId), {
        request: Date.now(),
        steered: last?.role === 'user' && last.content === 'steer',
      });
      return { text: 'ok' };
    },
  ],
  'steer-bench',
);

interface HistorySize {
  events: number;
  bytes: number;
  largestEventBytes: number;
}

function sizeOf(events: readonly HistoryEvent[]): HistorySize {
  let bytes = 0;
  let largestEventBytes = 0;
  for (const event of events) {
    const size = temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
    bytes += size;
    largestEventBytes = Math.max(largestEventBytes, size);
  }
  return { events: events.length, bytes, largestEventBytes };
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const bench = await openBenchTemporal(log);
  const taskQueue = `conversation-bench-${process.pid}`;
  const worker = startWorker(
    await createTurnWorker({
      connection: bench.native,
      namespace: bench.namespace,
      taskQueue,
      tools: [blob, gate],
      models: [model, steerModel],
      fleetHealth: false,
    }),
  );
  try {
    const turns = new TurnClient({ connection: bench.connection, namespace: bench.namespace, taskQueue });
    const conversations = new ConversationClient(turns);
    const historyOf = async (workflowId: string, runId?: string) =>
      sizeOf((await turns.client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? []);

    // The conversation: one message at a time, each a turn of its own.
    const id = `bench-conversation-${process.pid}-${Date.now()}`;
    const turnHistories: HistorySize[] = [];
    const turnMs: number[] = [];
    for (let n = 1; n <= TURNS; n++) {
      const started = performance.now();
      const receipt = await conversations.send(id, `message ${n}`, {
        messageId: `m${n}`,
        turn: { model: 'scripted' },
      });
      check(receipt.status === 'started', `message ${n} was ${receipt.status}, not started`);
      const result = await conversations.turn(id, n).result();
      turnMs.push(performance.now() - started);
      check(result.status === 'completed', `turn ${n} ended ${result.status}: ${result.reason ?? ''}`);
      turnHistories.push(await historyOf(`${id}#${n}`));
      // The conversation hears of the turn's end a moment after its result: the next send would queue.
      for (;;) {
        const state = await conversations.state(id);
        if (!state.running) break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      if (n % 20 === 0) log(`conversation: ${n} of ${TURNS} turns`);
    }
    const runs = await collect(turns.client.workflow.list({ query: `WorkflowId = 'conversation:${id}'` }));
    const runSizes = await Promise.all(runs.map((run) => historyOf(run.workflowId, run.runId)));

    // The same turns carried by the caller: each one's input is the whole transcript so far.
    const carriedHistories: HistorySize[] = [];
    const standaloneMs: number[] = [];
    let transcript: Message[] = [];
    let refused: { turn: number; error: string } | undefined;
    for (let n = 1; n <= TURNS; n++) {
      const input: Message[] = [...transcript, { role: 'user', content: `message ${n}` }];
      const turnId = `bench-carried-${process.pid}-${Date.now()}-${n}`;
      const started = performance.now();
      try {
        const result = await (await turns.start({ turnId, input, model: 'scripted' })).result();
        standaloneMs.push(performance.now() - started);
        check(result.status === 'completed', `carried turn ${n} ended ${result.status}`);
        transcript = [...input, ...result.transcript];
        carriedHistories.push(await historyOf(turnId));
      } catch (error) {
        refused = { turn: n, error: (error instanceof Error ? error.message : String(error)).slice(0, 300) };
        break;
      }
      if (n % 20 === 0) log(`carried: ${n} turns`);
    }

    // Steer latency: steered turns and turns left alone, alternating.
    const steerToRequestMs: number[] = [];
    const boundary: Record<'steered' | 'alone', number[]> = { steered: [], alone: [] };
    for (let i = 0; i < (quick ? 4 : 20); i++) {
      const steered = i % 2 === 0;
      const conversationId = `bench-steer-${process.pid}-${i}`;
      const turnId = `${conversationId}#1`;
      await conversations.send(conversationId, 'go', { messageId: 'go', turn: { model: 'steer-bench' } });
      while (marks.get(turnId)?.callStart === undefined)
        await new Promise((resolve) => setTimeout(resolve, 2));
      const sent = Date.now();
      if (steered)
        check(
          (
            await conversations.send(conversationId, 'steer', {
              messageId: 's',
              policy: 'steer',
              turn: { model: 'steer-bench' },
            })
          ).status === 'steered',
          'the steer was not taken by the running turn',
        );
      await conversations.turn(conversationId, 1).result();
      const seen = marks.get(turnId) ?? {};
      check(
        seen.steered === steered,
        `turn ${turnId}: its second request ${seen.steered ? 'carried' : 'lacked'} the steer`,
      );
      if (steered) steerToRequestMs.push((seen.request ?? 0) - sent);
      boundary[steered ? 'steered' : 'alone'].push((seen.request ?? 0) - (seen.callEnd ?? 0));
    }

    const at = (sizes: HistorySize[], n: number) => sizes[Math.min(n, sizes.length) - 1];
    const tenth = at(turnHistories, 10);
    const last = at(turnHistories, TURNS);
    const lastCarried = carriedHistories.length;
    const sum = (sizes: HistorySize[], upTo: number) =>
      sizes.slice(0, upTo).reduce((total, size) => total + size.bytes, 0);
    const conversationBytesUpTo = (upTo: number) =>
      sum(turnHistories, upTo) +
      // The conversation's own runs, spread evenly over its turns (they are read whole at the end).
      (runSizes.reduce((total, size) => total + size.bytes, 0) * upTo) / TURNS;
    const report = {
      bench: 'conversation',
      date: new Date().toISOString(),
      machine: machineInfo(loadBefore),
      turns: TURNS,
      callsPerTurn: CALLS,
      outputBytes: OUTPUT_BYTES,
      turnHistory: {
        turn10: tenth,
        last,
        /** Bytes of the last turn's history over the tenth's: 1 is flat. */
        lastOverTenth: tenth && last ? round(last.bytes / tenth.bytes) : null,
        largestEventBytes: Math.max(...turnHistories.map((s) => s.largestEventBytes)),
      },
      conversationWorkflow: {
        runs: runSizes.length,
        maxEventsPerRun: Math.max(...runSizes.map((s) => s.events)),
        maxBytesPerRun: Math.max(...runSizes.map((s) => s.bytes)),
        largestEventBytes: Math.max(...runSizes.map((s) => s.largestEventBytes)),
      },
      carriedByCaller: {
        turnsRun: lastCarried,
        refusedAt: refused ?? null,
        lastTurnHistory: at(carriedHistories, lastCarried) ?? null,
        /** The carried turn's history over the conversation's turn at the same number. */
        lastTurnOverConversationTurn:
          lastCarried > 0
            ? round(
                (at(carriedHistories, lastCarried)?.bytes ?? 0) /
                  (at(turnHistories, lastCarried)?.bytes ?? 1),
              )
            : null,
        /** All carried turns' history over the conversation's (its turns and its own runs) for as many turns. */
        totalOverConversation:
          lastCarried > 0
            ? round(sum(carriedHistories, lastCarried) / conversationBytesUpTo(lastCarried))
            : null,
      },
      timePerTurnMs: {
        conversation: round(median(turnMs)),
        standalone: round(median(standaloneMs.slice(0, 10))),
        /** A conversation turn (send → result, the conversation's own work included) over a standalone turn with a small input (the first ten). */
        conversationOverStandalone: round(median(turnMs) / median(standaloneMs.slice(0, 10))),
      },
      steer: {
        /** `send` of the steer → the request that carries it (the call had ~300 ms left). */
        sendToRequestMs: round(median(steerToRequestMs)),
        /** The call's end → the next request, in steered turns and in turns left alone. */
        callEndToRequestMs: {
          steered: round(median(boundary.steered)),
          alone: round(median(boundary.alone)),
        },
        /** What a steer adds at the boundary: 1 is nothing. */
        steeredOverAlone: round(median(boundary.steered) / median(boundary.alone)),
      },
    };
    await writeReport('conversation.json', report);
  } finally {
    await worker.stop();
    await bench.close();
  }
}

runBench(main);
