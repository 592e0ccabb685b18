import type { JournalEntry } from '../schema/journal-entry';
import { notifyObservers, type TurnObserver } from './turn-observer';

/**
 * Tells observers a turn's journal entries, each only to those that want its type (see
 * `TurnObserver.entryTypes`). Who wants a type is worked out once per type: entries come by the
 * thousand, and most observers (metrics among them) want only a few of their types.
 */
export class EntryObservers {
  private readonly byType = new Map<string, readonly TurnObserver[]>();

  private readonly observers: readonly TurnObserver[];

  constructor({ observers }: { observers: readonly TurnObserver[] }) {
    this.observers = observers;
  }

  notify({ turnId, entry }: { turnId: string; entry: JournalEntry }): void {
    if (this.observers.length === 0) return;
    let listeners = this.byType.get(entry.type);
    if (!listeners) {
      listeners = this.observers.filter((observer) => wants({ observer, type: entry.type }));
      this.byType.set(entry.type, listeners);
    }
    if (listeners.length > 0) notifyObservers(listeners, 'onEntry', { turnId, entry });
  }
}

function wants({ observer, type }: { observer: TurnObserver; type: JournalEntry['type'] }): boolean {
  try {
    if (!observer.onEntry) return false;
    const types = observer.entryTypes;
    return types === undefined || types.has(type);
  } catch {
    // An observer whose fields cannot even be read is skipped, as notifyObservers skips it.
    return false;
  }
}
