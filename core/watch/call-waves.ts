import { applyEntry } from '../engine/apply-entry';
import type { TurnState } from '../engine/turn-state';
import type { JournalEntry } from '../schema/journal-entry';

/** Each call's wave (numbered from 0 within its response), by tool call id. */
export type CallWaves = Record<string, number>;

/**
 * Reads the wave of every tool call from a turn's journal as it is watched, by the engine's own
 * reducer: the same plan the engine ran, for every batch, not only the current one its state
 * shows. Feed it every entry in order; the entries that add calls to a batch (`model.call_accepted`,
 * `model.responded`) return the waves of the calls they added.
 *
 * It needs the journal from `turn.started`: a watcher that joined a turn whose first entries are
 * no longer kept learns nothing here (only the current batch's waves, from the turn's state).
 */
export class CallWaveReader {
  private state: TurnState | undefined;
  private broken = false;

  take(entry: JournalEntry): CallWaves | undefined {
    if (this.broken || (this.state === undefined && entry.type !== 'turn.started')) {
      this.broken = true;
      return undefined;
    }
    try {
      this.state = applyEntry(this.state, entry);
    } catch {
      // A journal the reducer refuses is the turn's problem, shown elsewhere; waves just stop.
      this.broken = true;
      return undefined;
    }
    if (entry.type !== 'model.call_accepted' && entry.type !== 'model.responded') return undefined;
    const added = entry.type === 'model.call_accepted' ? [entry.call] : entry.calls;
    const batch = this.state.batch;
    if (!batch || batch.responseIndex !== entry.responseIndex) return undefined;
    const waves: CallWaves = {};
    for (const call of added) {
      const planned = batch.byId.get(call.toolCallId);
      if (planned) waves[call.toolCallId] = planned.wave;
    }
    return waves;
  }
}
