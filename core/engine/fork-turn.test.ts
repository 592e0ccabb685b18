import type { TranscriptEvent } from '../schema/journal-entry';
import { forkPrefix } from './fork-turn';

const responded = (responseIndex: number, text: string): TranscriptEvent => ({
  type: 'model.responded',
  responseIndex,
  message: { role: 'assistant', content: [{ type: 'text', text }] },
  calls: [],
  usage: { inputTokens: 1, outputTokens: 1 },
  finishReason: 'stop',
});

describe('forkPrefix', () => {
  test('a fork of a fork reaches into the record its source began from', () => {
    const inherited = [{ type: 'model.requested', responseIndex: 0 } as const, responded(0, 'first')];
    const events: TranscriptEvent[] = [
      { type: 'turn.started', turnId: 'b', input: [{ role: 'user', content: 'go' }] },
      { type: 'turn.forked', from: 'a', point: { afterResponse: 0 }, events: inherited },
      { type: 'model.requested', responseIndex: 1 },
      responded(1, 'second'),
      { type: 'turn.finished', status: 'completed' },
    ];
    expect(forkPrefix(events, { afterResponse: 0 })).toEqual(inherited);
    expect(forkPrefix(events, { afterResponse: 1 })).toEqual([...inherited, events[2], events[3]]);
  });
});
