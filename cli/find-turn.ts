import { WorkflowNotFoundError } from '@temporalio/client';
import type { TurnHandle } from '../client';
import { turnSearchAttributes } from '../contract/search-attributes';
import { turnWorkflowType } from '../contract/turn-workflow';
import { turnIdSchema } from '../core';
import { CliError } from './cli-error';
import type { ConnectedClient } from './connect-client';
import { exitCodes } from './exit-codes';

export interface FoundTurn {
  handle: TurnHandle;
  /** The workflow's status as the server has it: `RUNNING`, `COMPLETED`, `CANCELLED`, `TERMINATED`, … */
  workflowStatus: string;
  running: boolean;
  /**
   * How an ended turn ended, as an operator says it: the turn's own status (`cancelled`, `failed`,
   * …: its workflow completes either way), else the workflow's (`terminated`, `timed_out`).
   */
  endedAs: string;
  /**
   * Running, but no worker has taken its first workflow task (its history is the start and that
   * task only): nothing can answer a query, and what is asked of it waits for a worker.
   */
  awaitingWorker: boolean;
  /** The task queue its workflow runs on. */
  taskQueue: string;
  /** Its model (the search attribute its start set); absent for turns begun before workers recorded it. */
  model?: string;
}

/** A turn that exists, or an error naming the id and the namespace it is not in. */
export async function findTurn({
  connected,
  turnId,
}: {
  connected: ConnectedClient;
  turnId: string;
}): Promise<FoundTurn> {
  const id = turnIdSchema.safeParse(turnId);
  if (!id.success)
    throw new CliError(id.error.issues[0]?.message ?? 'invalid turn id', { exitCode: exitCodes.usage });
  const handle = connected.client.attach(turnId);
  try {
    const description = await connected.client.client.workflow.getHandle(turnId).describe();
    if (description.type !== turnWorkflowType)
      throw new CliError(
        `${turnId} in namespace ${connected.namespace} is a ${description.type} workflow, not a turn`,
      );
    const workflowStatus = description.status.name;
    const attributes = description.searchAttributes as Record<string, unknown[] | undefined>;
    const turnStatus = attributes[turnSearchAttributes.status.name]?.[0];
    const model = attributes[turnSearchAttributes.model.name]?.[0];
    const endedAs =
      workflowStatus === 'COMPLETED' && typeof turnStatus === 'string' && turnStatus !== 'running'
        ? turnStatus
        : workflowStatus.toLowerCase();
    const running = workflowStatus === 'RUNNING';
    return {
      handle,
      workflowStatus,
      running,
      endedAs,
      awaitingWorker: running && description.historyLength <= 2,
      taskQueue: description.taskQueue,
      ...(typeof model === 'string' && { model }),
    };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError)
      throw new CliError(
        `no turn ${turnId} in namespace ${connected.namespace} (on ${connected.address}); \`durable-turns list\` shows the turns there`,
        { cause: error },
      );
    throw error;
  }
}
