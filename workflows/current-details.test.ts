import { afterEach, describe, expect, it } from '@jest/globals';
import { getCurrentDetails } from '@temporalio/workflow';
import { CurrentDetails } from './current-details';

// The SDK's activator, as far as current details go: the run's global, with its field.
const activatorGlobal = globalThis as { __TEMPORAL_ACTIVATOR__?: object };
afterEach(() => {
  delete activatorGlobal.__TEMPORAL_ACTIVATOR__;
});

/** A details renderer that counts its renders, over a progress counter the test moves. */
function counting() {
  const turn = { seq: 0, renders: 0 };
  const details = new CurrentDetails(
    (phase) => {
      turn.renders += 1;
      return `${phase} at ${turn.seq}`;
    },
    () => turn.seq,
  );
  return { turn, details };
}

describe('current details', () => {
  it('are rendered when the metadata query reads them, not each time the phase changes', () => {
    activatorGlobal.__TEMPORAL_ACTIVATOR__ = { currentDetails: '' };
    const { turn, details } = counting();
    details.show('tools running');
    turn.seq = 1;
    details.show('tools running');
    turn.seq = 2;
    details.show('awaiting approval');
    expect(turn.renders).toBe(0);
    expect(getCurrentDetails()).toBe('awaiting approval at 2');
    expect(turn.renders).toBe(1);
  });

  it('are rendered again only when the turn recorded something or the phase changed', () => {
    activatorGlobal.__TEMPORAL_ACTIVATOR__ = { currentDetails: '' };
    const { turn, details } = counting();
    details.show('tools running');
    expect(getCurrentDetails()).toBe('tools running at 0');
    expect(getCurrentDetails()).toBe('tools running at 0');
    expect(turn.renders).toBe(1);
    turn.seq = 3;
    expect(getCurrentDetails()).toBe('tools running at 3');
    details.show('finished');
    expect(getCurrentDetails()).toBe('finished at 3');
    expect(turn.renders).toBe(3);
  });

  it('give way to details set by other code', () => {
    const activator = { currentDetails: '' };
    activatorGlobal.__TEMPORAL_ACTIVATOR__ = activator;
    const { details } = counting();
    details.show('tools running');
    activator.currentDetails = 'set by hand';
    expect(getCurrentDetails()).toBe('set by hand');
  });

  it('are rendered at once where the SDK keeps no field to take over', () => {
    // An activator whose details are not a plain string field: nothing to turn into a getter.
    let stored = '';
    const activator = {};
    Object.defineProperty(activator, 'currentDetails', {
      get: () => stored,
      set: (value: string) => {
        stored = value;
      },
    });
    activatorGlobal.__TEMPORAL_ACTIVATOR__ = activator;
    const { turn, details } = counting();
    details.show('tools running');
    expect(turn.renders).toBe(1);
    expect(stored).toBe('tools running at 0');
  });
});
