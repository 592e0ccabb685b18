/**
 * Part B of bench/scale.ts: many turns waiting for approval at once on one turn worker (a process
 * of its own). Each turn's first response asks for one call that requires approval; the turn
 * waits (durably) until it is approved, then runs it and answers. Measured: the time until every
 * turn waits (Visibility's `DurableTurnWaitingForApproval`), the worker's memory and cache while
 * they wait, and the time from the first approval until the last turn closed.
 */
import { type TurnClient, turnSearchAttributes } from 'durable-turns/client';
import { mapBounded, pollUntil } from './bounded';
import { check, round } from './measure';
import { verifyTurns } from './noop';
import { kib, mib, type RssReading, restingRss, sampleRss } from './rss-sampler';
import type { ScaleWorkerProcess } from './scale-worker-process';
import { approvalCallId, scaleModels, type WorkerStats } from './scale-worker-protocol';
import { type BenchTemporal, collect, cpuMeter, serverSettled } from './temporal-env';

export interface ApprovalsOptions {
  temporal: BenchTemporal;
  client: TurnClient;
  worker: ScaleWorkerProcess;
  taskQueue: string;
  turns: number;
  warmupTurns: number;
  /** Starts, approvals and result reads in flight at once from this client. */
  inFlight: number;
  /** How long the RSS is sampled while every turn waits. */
  plateauMs: number;
  log: (message: string) => void;
}

/** Visibility polls: what "every turn waits" and "every turn closed" are read from. */
const POLL_MS = 100;

let cycleSeq = 0;

export async function measureApprovals(o: ApprovalsOptions) {
  const scope = [
    `WorkflowType = 'turnWorkflow'`,
    `ExecutionStatus = 'Running'`,
    `TaskQueue = '${o.taskQueue}'`,
  ].join(' AND ');
  const waitingQuery = `${scope} AND ${turnSearchAttributes.waitingForApproval.name} = true`;
  const count = async (query: string) => (await o.client.client.workflow.count(query)).count;

  /** Starts `n` turns, waits until all wait, approves them all, waits until all closed; verified. */
  const cycle = async (n: number, label: string) => {
    const prefix = `${label}-${++cycleSeq}`;
    const turnIds = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
    const before = await o.worker.stats();

    const ramp = sampleRss(o.worker.pid);
    const rampCpu = cpuMeter(o.temporal.serverPid, o.worker.pid);
    const started = performance.now();
    await mapBounded(turnIds, o.inFlight, (turnId) =>
      o.client.start({ turnId, input: 'go', model: scaleModels.approval }),
    );
    const startedAllMs = performance.now() - started;
    await pollUntil(`${n} turns waiting for approval`, async () => (await count(waitingQuery)) >= n, {
      intervalMs: POLL_MS,
    });
    const allWaitingMs = performance.now() - started;
    const rampCores = rampCpu.stop();
    const rampRss = ramp.stop();

    // While they all wait: the worker at rest with every turn open.
    await serverSettled(o.temporal.serverPid, { belowCores: 0.1 });
    const plateau = await restingRss(o.worker.pid, o.plateauMs);
    const waiting = await o.worker.stats();
    o.log(
      `${label}: ${n} waiting after ${allWaitingMs.toFixed(0)} ms; worker RSS ${mib(plateau.medianBytes)} MiB, main heap used ${mib(waiting.memory.heapUsed)} MiB, ${waiting.numCachedWorkflows} workflows cached`,
    );
    check(
      waiting.executions.approvalTools === before.executions.approvalTools,
      `${label}: no call ran before approval`,
    );
    check((await count(waitingQuery)) === n, `${label}: ${n} turns still waiting`);

    const resume = sampleRss(o.worker.pid);
    const resumeCpu = cpuMeter(o.temporal.serverPid, o.worker.pid);
    const approvedAt = Date.now();
    const approving = performance.now();
    await mapBounded(turnIds, o.inFlight, (turnId) => o.client.attach(turnId).approve(approvalCallId));
    const approvalsAcceptedMs = performance.now() - approving;
    await pollUntil(`${n} turns closed`, async () => (await count(scope)) === 0, { intervalMs: POLL_MS });
    const allClosedSeenMs = performance.now() - approving;
    const resumeCores = resumeCpu.stop();
    const resumeRss = resume.stop();
    const after = await o.worker.stats();

    // Untimed: every turn's result, and when the server closed each (its clock is this machine's).
    const results = await mapBounded(turnIds, o.inFlight, (turnId) => o.client.attach(turnId).result());
    const ran = after.executions.approvalTools - before.executions.approvalTools;
    const asked = after.executions.models - before.executions.models;
    o.log(`${label}: ${ran} of ${n} approved calls ran, ${asked} of ${2 * n} model requests`);
    verifyTurns(results, turnIds, { calls: 1, responses: 2 });
    check(ran === n, `${label}: ${ran} of ${n} approved calls ran`);
    check(asked === 2 * n, `${label}: ${asked} of ${2 * n} model requests`);
    const closed = await collect(
      o.client.client.workflow.list({
        query: `WorkflowType = 'turnWorkflow' AND TaskQueue = '${o.taskQueue}' AND ExecutionStatus = 'Completed'`,
      }),
    );
    const mine = new Set(turnIds);
    const closeTimes = closed
      .filter((e) => mine.has(e.workflowId))
      .map((e) => e.closeTime?.getTime() ?? Number.NaN);
    check(closeTimes.length === n, `${label}: ${closeTimes.length} of ${n} turns listed completed`);
    const lastClosedMs = Math.max(...closeTimes) - approvedAt;
    return {
      startedAllMs,
      allWaitingMs,
      rampRss,
      rampCores,
      plateau,
      waiting,
      approvalsAcceptedMs,
      allClosedSeenMs,
      lastClosedMs,
      resumeRss,
      resumeCores,
      after,
    };
  };

  o.log(`approvals: warm-up, ${o.warmupTurns} turns`);
  await cycle(o.warmupTurns, 'approve-warm');
  await serverSettled(o.temporal.serverPid, { belowCores: 0.1 });
  const idle: { rss: RssReading; stats: WorkerStats } = {
    rss: await restingRss(o.worker.pid),
    stats: await o.worker.stats(),
  };
  o.log(`approvals: ${o.turns} turns, idle worker RSS ${mib(idle.rss.medianBytes)} MiB`);
  const c = await cycle(o.turns, 'approve');
  o.log(
    `approvals: all waiting after ${c.allWaitingMs.toFixed(0)} ms, RSS ${mib(c.plateau.medianBytes)} MiB; all closed ${c.lastClosedMs.toFixed(0)} ms after the first approval`,
  );
  const cores = (meter: typeof c.rampCores) => ({
    worker: meter.workerCores ?? null,
    server: meter.serverCores,
    benchClient: meter.benchProcessCores,
    other: meter.otherCores,
  });
  return {
    turns: o.turns,
    turn: 'one response asking for one call of a tool with requiresApproval (a no-op), then text; no approval timeout',
    clientInFlight: o.inFlight,
    method: `turns started ${o.inFlight} at a time (TurnClient.start); "all waiting" = a Visibility count of running turns on the queue with DurableTurnWaitingForApproval = true reaching N (polled every ${POLL_MS} ms, so it includes Visibility's lag); RSS while waiting = median over ${o.plateauMs} ms after the server settled; approvals sent ${o.inFlight} at a time (TurnHandle.approve, an Update that returns once the workflow recorded it); resume time = the first approval sent → the last turn's CloseTime in Visibility (server clock, same machine); every turn verified (completed, its call ran once after approval, 2 model requests); heapUsed is the worker main thread's (activities): the workflows run on the SDK's workflow thread, whose heap shows in the RSS only (BENCH_SCALE_WORKFLOWS_IN_MAIN_THREAD=1 puts them in it, for diagnosis)`,
    warmupTurns: o.turns === 0 ? 0 : o.warmupTurns,
    toWait: {
      startCallsMs: round(c.startedAllMs, 0),
      allWaitingMs: round(c.allWaitingMs, 0),
      turnsReachingWaitPerSecond: round(o.turns / (c.allWaitingMs / 1_000), 1),
      peakRssMiB: mib(c.rampRss.peakBytes),
      cores: cores(c.rampCores),
    },
    whileWaiting: {
      idleRssMiB: mib(idle.rss.medianBytes),
      rssMiB: mib(c.plateau.medianBytes),
      rssPerWaitingTurnKiB: kib((c.plateau.medianBytes - idle.rss.medianBytes) / o.turns),
      heapUsedIdleMiB: mib(idle.stats.memory.heapUsed),
      heapUsedMiB: mib(c.waiting.memory.heapUsed),
      heapUsedPerWaitingTurnKiB: kib((c.waiting.memory.heapUsed - idle.stats.memory.heapUsed) / o.turns),
      cachedWorkflows: c.waiting.numCachedWorkflows,
      stickyCacheSize: c.waiting.stickyCache?.size ?? null,
    },
    resume: {
      approvalsAcceptedMs: round(c.approvalsAcceptedMs, 0),
      resumeAllMs: round(c.lastClosedMs, 0),
      allClosedSeenByClientMs: round(c.allClosedSeenMs, 0),
      turnsResumedPerSecond: round(o.turns / (c.lastClosedMs / 1_000), 1),
      peakRssMiB: mib(c.resumeRss.peakBytes),
      cachedWorkflowsAfter: c.after.numCachedWorkflows,
      cores: cores(c.resumeCores),
    },
    /** The runtime's sticky cache counters, cumulative over the worker process (warm-up included). */
    stickyCache: {
      idle: idle.stats.stickyCache,
      whileWaiting: c.waiting.stickyCache,
      afterResume: c.after.stickyCache,
    },
  };
}
