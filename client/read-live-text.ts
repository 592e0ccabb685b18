import type { WorkflowHandle } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { type LiveTextDetails, liveTextDetailsSchema } from '../contract/live-text';

/** The activity that streams a model response (its name in `TurnActivities`). */
const modelActivityType = 'callModel';

/**
 * The text streaming in the turn's model requests now, from their pending activities' last
 * heartbeat: a read of the server (`describe`), which no workflow task or history event pays for.
 * `stream` names the attempt (activity id and attempt), so a watcher knows when another attempt
 * starts over. Details it cannot read (a worker older than live text) are skipped.
 */
export async function readLiveText({
  workflow,
}: {
  workflow: WorkflowHandle;
}): Promise<{ stream: string; details: LiveTextDetails }[]> {
  const { raw } = await workflow.describe();
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
  return found;
}
