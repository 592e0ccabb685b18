import type { TranscriptEvent } from '../schema/journal-entry';
import { turnContext } from './turn-messages';

const started: TranscriptEvent = {
  type: 'turn.started',
  turnId: 't',
  input: [{ role: 'user', content: 'big' }],
  revision: 3,
};
const responded = (responseIndex: number, text: string): TranscriptEvent => ({
  type: 'model.responded',
  responseIndex,
  message: { role: 'assistant', content: [{ type: 'text', text }] },
  calls: [],
  usage: { inputTokens: 0, outputTokens: 0 },
  finishReason: 'stop',
});
const compacted: TranscriptEvent = {
  type: 'context.compacted',
  through: 1,
  summary: 'summary of it all',
  usage: { inputTokens: 0, outputTokens: 0 },
};

describe('an ended turn as later turns send it', () => {
  test('a fork whose record compacted stands for the turns before it, as its source did: the summary, not what it covers', () => {
    const source = turnContext([started, responded(0, 'first'), compacted, responded(1, 'second')]);
    expect(source.replacesEarlier).toBe(true);
    const fork = turnContext([
      started,
      {
        type: 'turn.forked',
        from: 'src',
        point: { afterResponse: 1 },
        events: [responded(0, 'first'), compacted, responded(1, 'second')],
      },
      responded(2, 'third'),
    ]);
    expect(fork.replacesEarlier).toBe(true);
    // As the source sends it (its summary, its input, what came from the compaction point on), then its own.
    expect(fork.messages).toEqual([
      ...source.messages,
      { role: 'assistant', content: [{ type: 'text', text: 'third' }] },
    ]);
    expect(JSON.stringify(fork.messages)).toContain('summary of it all');
  });
});
