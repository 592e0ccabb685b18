import type { WorkflowHandle } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { type LiveTextDetails, liveTextDetailsSchema } from '../contract/live-text';

/** The activity that streams a model response (its name in `TurnActivities`). */
const modelActivityType = 'callModel';

export interface LiveTextLook {
  /**
   * The run and its history length: the turn's journal changes only in a workflow task, which
   * lengthens history, so while this stays the same there is nothing new to query for.
   */
  version: string;
  /**
   * A workflow task is scheduled or running. A query now waits for it in the server's small
   * buffer of queries, where it crowds out the model activity's own transcript query.
   */
  busy: boolean;
  /** The text streaming in the turn's model requests now. */
  streaming: { stream: string; details: LiveTextDetails }[];
}

/**
 * A look at the turn from the server (`describe`), which no workflow task, worker or history event
 * pays for: the text its model requests are streaming, from their pending activities' last
 * heartbeat. `stream` names the attempt that streamed it (activity id and attempt), so a watcher
 * knows when another attempt starts over. Details it cannot read (a worker older than live text)
 * are skipped.
 */
export async function readLiveText({ workflow }: { workflow: WorkflowHandle }): Promise<LiveTextLook> {
  const { raw, runId, historyLength } = await workflow.describe();
  const converter = workflow.client.options.loadedDataConverter;
  const found: { stream: string; details: LiveTextDetails }[] = [];
  for (const activity of raw.pendingActivities ?? []) {
    const payloads = activity.heartbeatDetails?.payloads;
    if (activity.activityType?.name !== modelActivityType || !payloads?.length) continue;
    const decoded = await decodeFromPayloadsAtIndex<unknown>(converter, 0, payloads).catch(() => undefined);
    const parsed = liveTextDetailsSchema.safeParse(decoded);
    if (parsed.success)
      found.push({ stream: `${activity.activityId}#${activity.attempt}`, details: parsed.data });
  }
  return { version: `${runId}/${historyLength}`, busy: Boolean(raw.pendingWorkflowTask), streaming: found };
}
