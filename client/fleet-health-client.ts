import { Client, type ConnectionLike, WorkflowNotFoundError } from '@temporalio/client';
import { dataConverterOption, type TurnEncryption } from '../codec/turn-data-converter';
import { fleetHealthQuery, fleetHealthStateSchema, fleetHealthWorkflowId } from '../contract/fleet-health';
import {
  fleetHealthHistoryQuery,
  type HealthHistoryBody,
  healthHistoryOptionsSchema,
  healthHistorySchema,
} from '../contract/fleet-health-history';
import { emptyFleetHealthView, type FleetHealthView, fleetHealthView } from './fleet-health-view';
import { lastWorkflowTaskFailure } from './last-workflow-task-failure';

export type FleetHealthClientOptions =
  /** `encryption` as `TurnClient`'s: the fleet workflow's answers are encrypted when the workers' data is. */
  { connection: ConnectionLike; namespace?: string; encryption?: TurnEncryption } | { client: Client };

/**
 * Reads tool health across the live workers of a task queue, from the queue's fleet health
 * workflow (each turn worker reports to it; see `createTurnWorker`'s `fleetHealth`).
 */
export class FleetHealthClient {
  readonly client: Client;

  constructor(options: FleetHealthClientOptions) {
    this.client =
      'client' in options
        ? options.client
        : new Client({
            connection: options.connection,
            namespace: options.namespace ?? 'default',
            ...dataConverterOption(options.encryption),
          });
  }

  /**
   * Per tool, each live worker's counters and their aggregate; each worker with its last report.
   * Empty when no worker reports on the queue (the workflow closes once its last worker is gone).
   */
  async fleetHealth({
    taskQueue,
    timeoutMs = 10_000,
  }: {
    taskQueue: string;
    /** How long the query may wait for a worker to answer it. */
    timeoutMs?: number;
  }): Promise<FleetHealthView> {
    const workflowId = fleetHealthWorkflowId({ taskQueue });
    const answer = await this.queryRunning({ taskQueue, timeoutMs, query: fleetHealthQuery.name });
    if (answer === undefined) return emptyFleetHealthView({ taskQueue, workflowId });
    return fleetHealthView({ state: fleetHealthStateSchema.parse(answer), workflowId });
  }

  /**
   * The tools' success rates over time, per tool and per worker, as the queue's fleet health
   * workflow kept them (the last 30 minutes by default, a point per 10 s), oldest first. Empty when
   * no worker reports on the queue.
   */
  async healthHistory({
    taskQueue,
    timeoutMs = 10_000,
  }: {
    taskQueue: string;
    timeoutMs?: number;
  }): Promise<HealthHistoryBody> {
    const answer = await this.queryRunning({ taskQueue, timeoutMs, query: fleetHealthHistoryQuery.name });
    if (answer === undefined)
      return { retentionMs: healthHistoryOptionsSchema.parse({}).retentionMs, points: [] };
    return healthHistorySchema.parse(answer);
  }

  /** The query's answer from the queue's running fleet health workflow; undefined with none running. */
  private async queryRunning({
    taskQueue,
    timeoutMs,
    query,
  }: {
    taskQueue: string;
    timeoutMs: number;
    /** Its name: the answer is parsed by the caller. */
    query: string;
  }): Promise<unknown> {
    const workflowId = fleetHealthWorkflowId({ taskQueue });
    const handle = this.client.workflow.getHandle(workflowId);
    let running: boolean;
    try {
      running = (await handle.describe()).status.name === 'RUNNING';
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
    // A closed run's roster is empty by construction; not querying it needs no worker to replay it.
    if (!running) return undefined;
    try {
      return await this.client.withDeadline(Date.now() + timeoutMs, () => handle.query(query));
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      const failing = await lastWorkflowTaskFailure({ client: this.client, workflowId });
      throw new Error(
        failing
          ? `cannot read the fleet health of task queue ${taskQueue}: the workers of that queue fail workflow ` +
              `${workflowId}'s task: ${failing}. A worker that cannot read it starts it afresh (its history is lost).`
          : `cannot read the fleet health of task queue ${taskQueue}: workflow ${workflowId} is running but its query ` +
              `was not answered within ${timeoutMs} ms (${why}). The turn workers of that queue answer it: if none ` +
              'is running, there is no fleet to show until one starts; if they are busy, give the query longer (timeoutMs).',
      );
    }
  }
}
