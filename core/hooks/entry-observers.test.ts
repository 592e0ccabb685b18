import type { JournalEntry } from '../schema/journal-entry';
import { EntryObservers } from './entry-observers';
import type { TurnObserver } from './turn-observer';

const requested: JournalEntry = { type: 'model.requested', responseIndex: 0 };
const accepted = { type: 'model.call_accepted', toolCallId: 'c1' } as unknown as JournalEntry;
const finished: JournalEntry = { type: 'turn.finished', status: 'completed' };

function heard() {
  const types: string[] = [];
  const observer = (entryTypes?: ReadonlySet<JournalEntry['type']>): TurnObserver => ({
    onEntry: ({ entry }) => types.push(entry.type),
    ...(entryTypes ? { entryTypes } : {}),
  });
  return { types, observer };
}

describe('telling observers journal entries', () => {
  it('tells an observer without entry types every entry, and one with them only those, in order', () => {
    const all = heard();
    const some = heard();
    const observers = new EntryObservers({
      observers: [all.observer(), some.observer(new Set(['turn.finished', 'model.requested']))],
    });
    for (const entry of [requested, accepted, finished, accepted]) observers.notify({ turnId: 't', entry });
    expect(all.types).toEqual([
      'model.requested',
      'model.call_accepted',
      'turn.finished',
      'model.call_accepted',
    ]);
    expect(some.types).toEqual(['model.requested', 'turn.finished']);
  });

  it('passes the turn id with the entry', () => {
    const events: { turnId: string; entry: JournalEntry }[] = [];
    const observer: TurnObserver = { onEntry: (event) => events.push(event) };
    new EntryObservers({ observers: [observer] }).notify({ turnId: 'turn-7', entry: finished });
    expect(events).toEqual([{ turnId: 'turn-7', entry: finished }]);
  });

  it('skips an observer whose entry types cannot even be read, and still tells the others', () => {
    const next = heard();
    const hostile = Object.defineProperty({ onEntry: () => {} }, 'entryTypes', {
      get() {
        throw new Error('no types for you');
      },
    }) as TurnObserver;
    new EntryObservers({ observers: [hostile, next.observer()] }).notify({ turnId: 't', entry: finished });
    expect(next.types).toEqual(['turn.finished']);
  });
});
