import { describe, expect, it } from '@jest/globals';
import { CurrentDetails } from './current-details';

/**
 * A details renderer that counts its renders, over a progress counter the test moves, with an
 * activator of its own (the SDK's, as far as current details go: a plain string field). Never the
 * process's global: the SDK's promise hook, once a worker or a replay installed it, reads that
 * global for every promise.
 */
function counting(activator: object = { currentDetails: '' }) {
  const turn = { seq: 0, renders: 0, set: [] as string[] };
  const details = new CurrentDetails({
    render: (phase) => {
      turn.renders += 1;
      return `${phase} at ${turn.seq}`;
    },
    progressSeq: () => turn.seq,
    activator,
    set: (text) => turn.set.push(text),
  });
  return { turn, details, read: () => (activator as { currentDetails?: string }).currentDetails };
}

describe('current details', () => {
  it('are rendered when the metadata query reads them, not each time the phase changes', () => {
    const { turn, details, read } = counting();
    details.show('tools running');
    turn.seq = 1;
    details.show('tools running');
    turn.seq = 2;
    details.show('awaiting approval');
    expect(turn.renders).toBe(0);
    expect(read()).toBe('awaiting approval at 2');
    expect(turn.renders).toBe(1);
    expect(turn.set).toEqual([]);
  });

  it('are rendered again only when the turn recorded something or the phase changed', () => {
    const { turn, details, read } = counting();
    details.show('tools running');
    expect(read()).toBe('tools running at 0');
    expect(read()).toBe('tools running at 0');
    expect(turn.renders).toBe(1);
    turn.seq = 3;
    expect(read()).toBe('tools running at 3');
    details.show('finished');
    expect(read()).toBe('finished at 3');
    expect(turn.renders).toBe(3);
  });

  it('give way to details set by other code', () => {
    const activator = { currentDetails: '' };
    const { details, read } = counting(activator);
    details.show('tools running');
    activator.currentDetails = 'set by hand';
    expect(read()).toBe('set by hand');
  });

  it('are set at once where the SDK keeps no field to take over', () => {
    // An activator whose details are not a plain string field: nothing to turn into a getter.
    const activator = {};
    Object.defineProperty(activator, 'currentDetails', { get: () => 'theirs', configurable: true });
    const { turn, details } = counting(activator);
    details.show('tools running');
    turn.seq = 1;
    details.show('tools running');
    expect(turn.set).toEqual(['tools running at 0', 'tools running at 1']);
  });
});
