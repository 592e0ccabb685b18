/**
 * The hand-written floor for the per-call overhead: a workflow that calls one no-op activity `calls`
 * times, one after another, with nothing else around it (and the same over a local activity).
 * Bundled and run by temporal-env.ts's startFloorWorker (bench:temporal, quick-tools, workflow-cpu).
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';

export interface FloorActivities {
  floorNoop(i: number): Promise<string>;
}

const { floorNoop } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

/** Returns how many calls answered "ok". */
export async function floorWorkflow(calls: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < calls; i++) if ((await floorNoop(i)) === 'ok') ok += 1;
  return ok;
}

const local = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

/** The local-activity floor: the same loop over a no-op local activity. */
export async function localFloorWorkflow(calls: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < calls; i++) if ((await local.floorNoop(i)) === 'ok') ok += 1;
  return ok;
}
