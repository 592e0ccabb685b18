import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { TurnResult } from 'durable-turns';
import { TurnClient } from 'durable-turns/client';
import { sleep, uniqueTurnId } from '../conformance/support';
import { testTemporal } from '../support/temporal-env';
import { keyCollisions, type TurnFigures, turnViolations } from './support/chaos-checks';
import { type ChaosPlan, chaosPlans, mulberry32, serialWorkMs } from './support/chaos-plan';
import { readLedger } from './support/ledger';
import { type KillMode, pickVictim } from './support/pick-victim';
import { WorkerFleet } from './support/worker-fleet';

/** Short, so a killed worker's attempts are noticed within seconds; every wait below derives from it. */
const heartbeatTimeoutMs = 2_000;
const workers = 3;
const turns = 8;
const maxKills = 8;
/** Bundling the workflow code takes seconds per process, more with other tests running. */
const readyTimeoutMs = 90_000;
/** Temporal's default: a workflow task lost with its worker is handed out again after this long. */
const workflowTaskTimeoutMs = 10_000;

const killModes: KillMode[] = ['in-flight', 'just-finished', 'streaming'];

const seed = Number(process.env.CHAOS_SEED) || Math.floor(Math.random() * 2 ** 31);

/** Kept after a failing run: its ledger and plans are the evidence. */
const dir = mkdtempSync(path.join(os.tmpdir(), 'chaos-'));
let passed = false;
let connection: Connection | undefined;
let fleet: WorkerFleet | undefined;
afterAll(async () => {
  fleet?.stopAll();
  await connection?.close();
  if (passed) rmSync(dir, { recursive: true, force: true });
});

describe('chaos: worker processes killed at random', () => {
  test('every turn ends with a valid transcript, no finished call runs again, no call that is not retry-safe runs twice, and every interrupted output is true', async () => {
    await withSeed(async () => {
      const random = mulberry32(seed);
      const between = (lo: number, hi: number) => lo + random() * (hi - lo);
      const { address, namespace } = testTemporal();
      const ledger = path.join(dir, 'ledger.jsonl');
      const plansFile = path.join(dir, 'plans.json');
      const taskQueue = `chaos-${process.pid}-${seed}`;
      const plans = chaosPlans({
        random,
        turnIds: Array.from({ length: turns }, () => uniqueTurnId('chaos')),
      });
      writeFileSync(plansFile, JSON.stringify(plans));
      const started = Date.now();
      fleet = new WorkerFleet({
        address,
        namespace,
        taskQueue,
        ledger,
        plansFile,
        heartbeatTimeoutMs,
        readyTimeoutMs,
      });
      const running = fleet;
      await running.start({ count: workers, spares: 1 });
      connection = await Connection.connect({ address });
      const client = new TurnClient({ connection, namespace, taskQueue });

      const results = new Map<string, TurnResult>();
      const ending = plans.map(async (plan) => {
        const turn = await client.start({
          turnId: plan.turnId,
          input: 'go',
          model: plan.model,
          timing: { heartbeatTimeoutMs },
          ...(plan.continueAsNewAfterEvents
            ? { continueAsNewAfterEvents: plan.continueAsNewAfterEvents }
            : {}),
        });
        results.set(plan.turnId, await turn.result());
      });
      const allEnded = Promise.all(ending);
      let ended = false;
      void allEnded.finally(() => {
        ended = true;
      });
      // A replacement that fails to start leaves the fleet short: worth knowing, if not the library's fault.
      const fleetProblems: string[] = [];

      // Kills land every half to one and a half heartbeat timeouts: on a worker with an effect in
      // flight, on the next to finish one, or on the next to stream a response; one always stays up.
      while (!ended && running.kills < maxKills) {
        await Promise.race([sleep(between(0.5, 1.5) * heartbeatTimeoutMs), allEnded]);
        if (ended) break;
        const victim = await pickVictim({
          fleet: running,
          ledger,
          random,
          mode: killModes[Math.floor(random() * killModes.length)]!,
          withinMs: heartbeatTimeoutMs,
        });
        if (victim && !ended)
          running
            .killAndReplace(victim)
            .catch((error: unknown) => fleetProblems.push(`fleet: ${String(error)}`));
      }

      // The last kill's losses are noticed within a heartbeat timeout and its workflow tasks
      // handed out again within the workflow task timeout; the rest is the turns' own work.
      const longestWorkMs = Math.max(...plans.map(serialWorkMs));
      const endBoundMs = longestWorkMs + maxKills * (2 * heartbeatTimeoutMs + workflowTaskTimeoutMs);
      await bounded(allEnded, endBoundMs, () => {
        const open = plans.filter((p) => !results.has(p.turnId)).map((p) => p.turnId);
        return `turns still running ${endBoundMs} ms after the last kill: ${open.join(', ')}`;
      });

      const lines = readLedger(ledger);
      const violations = [...fleetProblems, ...keyCollisions(lines)];
      const totals: TurnFigures = {
        calls: 0,
        reruns: 0,
        interrupted: 0,
        finishedButLost: 0,
        partialResponses: 0,
      };
      for (const plan of plans) {
        const checked = turnViolations({ result: results.get(plan.turnId)!, lines });
        violations.push(...checked.violations);
        for (const key of Object.keys(totals) as Array<keyof TurnFigures>)
          totals[key] += checked.figures[key];
      }
      if (process.env.CHAOS_REPORT === '1') {
        const continued = await continuedTurns(client, plans);
        console.log(
          `chaos seed ${seed}: ${turns} turns (${continued} continued as new), ${totals.calls} calls, ${running.kills} kills, ` +
            `${totals.reruns} lost attempts rerun, ${totals.interrupted} interrupted outputs, ` +
            `${totals.finishedButLost} finished effects lost with their worker, ` +
            `${totals.partialResponses} responses cut off mid-stream, ${Date.now() - started} ms ` +
            `(worker start-up ${Math.min(...running.startupMs)}-${Math.max(...running.startupMs)} ms)`,
        );
      }
      // A run that killed nothing proves nothing.
      expect(running.kills).toBeGreaterThan(0);
      expect(violations).toEqual([]);
      passed = true;
    });
  }, 240_000);
});

/** How many turns ran more than one workflow run. */
async function continuedTurns(client: TurnClient, plans: readonly ChaosPlan[]): Promise<number> {
  const described = await Promise.all(
    plans.map((p) => client.client.workflow.getHandle(p.turnId).describe()),
  );
  return described.filter((d) => d.runId !== d.raw.workflowExecutionInfo?.firstRunId).length;
}

/** Every failure names the seed, so the run can be repeated with CHAOS_SEED. */
async function withSeed(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    if (error instanceof Error) {
      // Jest prints the stack, which copied the message when the error was made: tag both.
      const tagged = `CHAOS_SEED=${seed} (ledger and plans in ${dir}): ${error.message}`;
      error.stack = error.stack?.replace(error.message, tagged);
      error.message = tagged;
    }
    throw error;
  }
}

async function bounded(promise: Promise<unknown>, ms: number, why: () => string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(why())), ms);
  });
  try {
    await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
