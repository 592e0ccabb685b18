/**
 * The hand-written floor for the per-call overhead: a workflow that calls one no-op activity `calls`
 * times, one after another, with nothing else around it. Bundled by bench/temporal.ts.
 */
import { proxyActivities } from '@temporalio/workflow';

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
