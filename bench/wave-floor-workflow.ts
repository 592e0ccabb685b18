/**
 * The hand-written floor for a turn of parallel waves: the round trips such a turn needs and
 * nothing else. A no-op "model" activity, then `width` no-op activities at once, `rounds` times,
 * and a last "model" activity (the text answer). Bundled by bench/scale.ts.
 */
import { proxyActivities } from '@temporalio/workflow';

export interface WaveFloorActivities {
  floorModel(round: number): Promise<string>;
  floorNoop(i: number): Promise<string>;
}

const { floorModel, floorNoop } = proxyActivities<WaveFloorActivities>({ startToCloseTimeout: '1 minute' });

/** Returns how many of the parallel calls answered "ok". */
export async function waveFloorWorkflow(rounds: number, width: number): Promise<number> {
  let ok = 0;
  for (let r = 0; r < rounds; r++) {
    await floorModel(r);
    const answers = await Promise.all(Array.from({ length: width }, (_, i) => floorNoop(r * width + i)));
    ok += answers.filter((answer) => answer === 'ok').length;
  }
  await floorModel(rounds);
  return ok;
}
