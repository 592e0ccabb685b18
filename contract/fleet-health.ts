import { defineQuery, defineSignal } from '@temporalio/workflow';
import { z } from 'zod';
import { healthHistoryOptionsSchema, healthPointSchema } from './fleet-health-history';
import { fleetWorkerRecordSchema, type WorkerHealthReport } from './fleet-health-report';

// What a worker reports, and the roster's records of it, live in their own module (the history
// reads them too); those who speak to the fleet health workflow find them here.
export * from './fleet-health-report';

/**
 * The fleet health workflow: one per task queue, fed by every turn worker on that queue with its
 * tool health (signal-with-start every few seconds), answering the merged roster by query. It is
 * the only place an operator can see health that otherwise lives in each worker's memory.
 */
export const fleetHealthWorkflowType = 'fleetHealthWorkflow';

/** The fleet health workflow's id for a task queue: one roster per queue, found without a lookup. */
export function fleetHealthWorkflowId({ taskQueue }: { taskQueue: string }): string {
  return `durable-turns-health:${taskQueue}`;
}

/** The query's answer: the live roster. */
export const fleetHealthStateSchema = z.object({
  taskQueue: z.string(),
  /** Workflow time of the task that answered (the last signal or timer), not the asker's clock. */
  asOf: z.number(),
  /** Which run of the workflow answered (1 for the first; +1 at each continue-as-new). */
  run: z.number().int().positive(),
  workers: z.array(fleetWorkerRecordSchema),
});
export type FleetHealthState = z.infer<typeof fleetHealthStateSchema>;

export const fleetHealthWorkflowInputSchema = z.object({
  taskQueue: z.string().min(1),
  /** Set by the workflow itself at continue-as-new: the roster so far. */
  workers: z.array(fleetWorkerRecordSchema).default([]),
  /** Continue-as-new after this many signals in one run (or when the server suggests it). */
  continueAsNewAfterSignals: z.number().int().positive().default(500),
  run: z.number().int().positive().default(1),
  /** Success rates over time (`fleetHealthHistoryQuery`): how often, how far back, how big. */
  history: healthHistoryOptionsSchema.prefault({}),
  /** Set by the workflow itself at continue-as-new: the history so far. */
  historyPoints: z.array(healthPointSchema).default([]),
});
export type FleetHealthWorkflowInput = z.infer<typeof fleetHealthWorkflowInputSchema>;
export type FleetHealthWorkflowInputArgs = z.input<typeof fleetHealthWorkflowInputSchema>;

export const reportHealthSignal = defineSignal<[WorkerHealthReport]>('reportHealth');
/** A worker that stops gracefully leaves at once instead of waiting out its TTL. */
export const workerLeftSignal = defineSignal<[{ identity: string }]>('workerLeft');
export const fleetHealthQuery = defineQuery<FleetHealthState>('fleetHealth');
