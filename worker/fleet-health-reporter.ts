import type { Client } from '@temporalio/client';
import { z } from 'zod';
import type { FleetHealthWorkflowInputArgs } from '../contract/fleet-health';
import {
  fleetHealthLimits,
  fleetHealthWorkflowId,
  fleetHealthWorkflowType,
  reportHealthSignal,
  type WorkerHealthReport,
  workerLeftSignal,
} from '../contract/fleet-health';
import type { ToolHealthRegistry } from '../core';

export const fleetHealthReportingSchema = z.object({
  /** How often the worker sends its tool health (default 10 s). */
  intervalMs: z.number().int().positive().default(10_000),
  /**
   * How long after its last report a silent worker drops out of the fleet view (default three
   * intervals: one late or lost report is not a death).
   */
  ttlMs: z.number().int().positive().optional(),
});
export type FleetHealthReportingOptions = z.input<typeof fleetHealthReportingSchema>;

/** A reporter starts its fleet health workflow afresh at most this often (its history's retention). */
const restartEveryMs = 30 * 60_000;

export const fleetHealthReporterDeadlines = {
  /** A report RPC gets max(this, an interval): a slow server delays the next report, never stacks them. */
  reportMs: 5_000,
  /** A stopping worker waits at most this long to say it left; past it, its TTL removes it instead. */
  leaveMs: 2_000,
} as const;

/**
 * Sends this worker's tool health to its task queue's fleet health workflow every `intervalMs`,
 * by signal-with-start (the first report, or the first after the fleet emptied, starts the
 * workflow), and says it left when stopped. A failed report never disturbs the worker: it is
 * logged once (and again when reports get through), and the next interval tries again.
 */
export class FleetHealthReporter {
  readonly workflowId: string;
  readonly intervalMs: number;
  readonly ttlMs: number;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> = Promise.resolve();
  /** The leave signal `stop` stopped waiting for, maybe still in flight. */
  private leaving: Promise<void> = Promise.resolve();
  /** Aborts a report still in flight when the worker stops: its shutdown never waits on a slow server. */
  private readonly stopping = new AbortController();
  private stopped = false;
  private failing = false;
  /** When this reporter last started the workflow afresh (see `cannotRead`). */
  private restartedAt: number | undefined;

  constructor(
    private readonly deps: {
      client: Client;
      taskQueue: string;
      identity: string;
      health: ToolHealthRegistry;
      options?: FleetHealthReportingOptions;
      log: (message: string) => void;
    },
  ) {
    const options = fleetHealthReportingSchema.parse(deps.options ?? {});
    this.workflowId = fleetHealthWorkflowId({ taskQueue: deps.taskQueue });
    this.intervalMs = options.intervalMs;
    this.ttlMs = options.ttlMs ?? 3 * options.intervalMs;
  }

  /** Reports now, then every interval (measured from each report's start, so it does not drift). */
  start(): void {
    const tick = () => {
      if (this.stopped) return;
      const started = Date.now();
      this.inFlight = this.report().then(() => {
        if (this.stopped) return;
        this.timer = setTimeout(tick, Math.max(0, started + this.intervalMs - Date.now()));
        // The reporter never keeps a process alive on its own.
        this.timer.unref();
      });
    };
    tick();
  }

  /**
   * Stops reporting; with `leave`, tells the workflow this worker is gone. Best effort and bounded
   * by `leaveMs` in all: the client's retries can outlast an abort or a deadline against an
   * unreachable server, so a stopping worker stops waiting instead (its TTL removes it then).
   */
  async stop({ leave }: { leave: boolean }): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.stopping.abort();
    const leaving = this.inFlight.then(async () => {
      if (!leave) return;
      await this.withDeadline(fleetHealthReporterDeadlines.leaveMs, () =>
        this.deps.client.workflow.getHandle(this.workflowId).signal(workerLeftSignal, {
          identity: this.deps.identity,
        }),
      );
    });
    // The workflow may be gone, or the server unreachable: the TTL removes this worker anyway.
    this.leaving = leaving.catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    const givenUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, fleetHealthReporterDeadlines.leaveMs);
    });
    await Promise.race([this.leaving, givenUp]);
    clearTimeout(timer);
  }

  /**
   * Resolves once no request of this reporter is in flight, after `stop` too (which does not wait
   * for them): a client connection closed under a request the client still retries can throw.
   */
  async idle(): Promise<void> {
    await this.inFlight;
    await this.leaving;
  }

  /**
   * This worker cannot open a payload of the fleet health workflow (one written with a key it does
   * not hold: a run with keys before this one, on the same server). Its task would fail on every
   * try, and `health` would see only unanswered queries. Fleet health is soft state: the run is
   * terminated, saying why, and the next report starts it afresh, losing only its history. At most
   * once per history retention, so a fleet whose workers disagree on keys does not restart it
   * over and over (each worker's log says which key is missing).
   */
  cannotRead({ keyId, why }: { keyId: string; why: string }): void {
    const now = Date.now();
    if (this.stopped || (this.restartedAt !== undefined && now - this.restartedAt < restartEveryMs)) return;
    this.restartedAt = now;
    const reason =
      `worker ${this.deps.identity} cannot read this fleet health run (${why}); fleet health is soft state, ` +
      'so it is started afresh, losing its tool health history';
    this.deps.log(
      `durable-turns: ${this.workflowId} holds a payload encrypted with key ${keyId} that this worker cannot open: ` +
        'terminating it; the next report starts it afresh (its tool health history is lost).',
    );
    void this.deps.client.workflow
      .getHandle(this.workflowId)
      .terminate(reason)
      .then(
        () => this.report(),
        (error: unknown) =>
          this.deps.log(
            `durable-turns: could not terminate ${this.workflowId}: ${error instanceof Error ? error.message : String(error)}`,
          ),
      );
  }

  /** The report this worker sends now. */
  snapshot(): WorkerHealthReport {
    return {
      identity: this.deps.identity,
      reportedAt: Date.now(),
      intervalMs: this.intervalMs,
      ttlMs: this.ttlMs,
      tools: this.deps.health.snapshot().slice(0, fleetHealthLimits.toolsPerReport),
    };
  }

  private async report(): Promise<void> {
    const args: FleetHealthWorkflowInputArgs = { taskQueue: this.deps.taskQueue };
    try {
      await this.deps.client.withAbortSignal(this.stopping.signal, () =>
        this.withDeadline(Math.max(this.intervalMs, fleetHealthReporterDeadlines.reportMs), () =>
          this.deps.client.workflow.signalWithStart(fleetHealthWorkflowType, {
            workflowId: this.workflowId,
            taskQueue: this.deps.taskQueue,
            args: [args],
            signal: reportHealthSignal,
            signalArgs: [this.snapshot()],
          }),
        ),
      );
      if (this.failing)
        this.deps.log(`durable-turns: fleet health reports to ${this.workflowId} get through again`);
      this.failing = false;
    } catch (error) {
      if (this.stopped) return;
      if (!this.failing) {
        const why = error instanceof Error ? error.message : String(error);
        this.deps.log(
          `durable-turns: cannot report tool health to ${this.workflowId} (${why}); retrying every ${this.intervalMs} ms. ` +
            'Operators will not see this worker in the fleet view until a report gets through; turns are not affected.',
        );
      }
      this.failing = true;
    }
  }

  private withDeadline<T>(ms: number, fn: () => Promise<T>): Promise<T> {
    return this.deps.client.withDeadline(Date.now() + ms, fn);
  }
}
