import type { TurnWatchEvent } from '../contract/live-text';
import type { TurnStateView } from '../core';

/**
 * The part of `TurnClient` the live feed of a turn uses: its watch and its state. A narrow type,
 * so a test can count what reaches the turns through a wrapped client.
 */
export interface TurnWatchSource {
  watch(turnId: string, options: { signal: AbortSignal }): AsyncIterable<TurnWatchEvent>;
  state(turnId: string): Promise<TurnStateView>;
}
