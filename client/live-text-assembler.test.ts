import { tailOf } from '../activities/live-text';
import type { LiveChannelName, LiveTextDetails, TurnWatchEvent } from '../contract/live-text';
import type { AssistantMessage } from '../core';
import { mulberry32 } from '../test/fuzz/fuzz-random';
import { LiveTextAssembler } from './live-text-assembler';

const snapshotOf = ({
  text,
  reasoning = '',
  windowChars = 1_000,
  responseIndex = 0,
}: {
  text: string;
  reasoning?: string;
  windowChars?: number;
  responseIndex?: number;
}): LiveTextDetails => ({
  liveText: 1,
  responseIndex,
  attempt: 1,
  text: tailOf({ text, windowChars }),
  reasoning: tailOf({ text: reasoning, windowChars }),
});

const message = (text: string, reasoning = ''): AssistantMessage => ({
  role: 'assistant',
  content: [...(reasoning ? [{ type: 'reasoning' as const, text: reasoning }] : []), { type: 'text', text }],
});

/**
 * What a consumer shows, built from events alone; it throws on any delta that does not continue
 * exactly where the channel stands (out of order or repeated), so passing means the stream was clean.
 */
function display(events: readonly TurnWatchEvent[]): Record<LiveChannelName, string> {
  const shown = { text: '', reasoning: '' };
  for (const event of events) {
    if (event.kind === 'restart') {
      shown.text = '';
      shown.reasoning = '';
    } else if (event.kind === 'gap') {
      if (event.offset !== shown[event.channel].length)
        throw new Error(`gap at ${event.offset} out of place`);
      shown[event.channel] += '?'.repeat(event.length);
    } else if (event.kind === 'delta') {
      if (event.offset !== shown[event.channel].length)
        throw new Error(`delta at ${event.offset}, expected ${shown[event.channel].length}`);
      shown[event.channel] += event.delta;
    }
  }
  return shown;
}

describe('assembling live text from heartbeat snapshots', () => {
  test('each snapshot yields only what is new, in order; a snapshot seen twice yields nothing', () => {
    const assembler = new LiveTextAssembler();
    const a = assembler.snapshot({ stream: 's', details: snapshotOf({ text: 'Hel' }) });
    const again = assembler.snapshot({ stream: 's', details: snapshotOf({ text: 'Hel' }) });
    const b = assembler.snapshot({
      stream: 's',
      details: snapshotOf({ text: 'Hello, wo', reasoning: 'hm' }),
    });
    expect(a).toEqual([{ kind: 'delta', responseIndex: 0, channel: 'text', offset: 0, delta: 'Hel' }]);
    expect(again).toEqual([]);
    expect(b).toEqual([
      { kind: 'delta', responseIndex: 0, channel: 'reasoning', offset: 0, delta: 'hm' },
      { kind: 'delta', responseIndex: 0, channel: 'text', offset: 3, delta: 'lo, wo' },
    ]);
  });

  test('the response completes with the rest of its recorded text, and later snapshots of it are ignored', () => {
    const assembler = new LiveTextAssembler();
    const events = [
      ...assembler.snapshot({ stream: 's', details: snapshotOf({ text: 'Hello' }) }),
      ...assembler.complete({ responseIndex: 0, message: message('Hello, world') }),
      ...assembler.snapshot({ stream: 's', details: snapshotOf({ text: 'Hello, world' }) }),
    ];
    expect(events.at(-1)).toEqual({
      kind: 'delta',
      responseIndex: 0,
      channel: 'text',
      offset: 5,
      delta: ', world',
    });
    expect(display(events).text).toBe('Hello, world');
  });

  test('a watcher that fell behind the window is told of the gap, then gets the whole text at the end', () => {
    const assembler = new LiveTextAssembler();
    const full = 'abcdefghijklmnopqrstuvwxyz';
    const first = assembler.snapshot({ stream: 's', details: snapshotOf({ text: 'abc', windowChars: 5 }) });
    const behind = assembler.snapshot({
      stream: 's',
      details: snapshotOf({ text: full.slice(0, 12), windowChars: 5 }),
    });
    expect(behind[0]).toEqual({ kind: 'gap', responseIndex: 0, channel: 'text', offset: 3, length: 4 });
    expect(behind[1]).toEqual({
      kind: 'delta',
      responseIndex: 0,
      channel: 'text',
      offset: 7,
      delta: 'hijkl',
    });
    const end = assembler.complete({ responseIndex: 0, message: message(full) });
    expect(end).toEqual([
      { kind: 'restart', responseIndex: 0 },
      { kind: 'delta', responseIndex: 0, channel: 'text', offset: 0, delta: full },
    ]);
    expect(display([...first, ...behind, ...end]).text).toBe(full);
  });

  test('another attempt of the same response starts over with a restart', () => {
    const assembler = new LiveTextAssembler();
    const events = [
      ...assembler.snapshot({ stream: 'a#1', details: snapshotOf({ text: 'first try' }) }),
      ...assembler.snapshot({ stream: 'b#1', details: snapshotOf({ text: 'sec' }) }),
    ];
    expect(events.map((e) => e.kind)).toEqual(['delta', 'restart', 'delta']);
    expect(display(events).text).toBe('sec');
    const end = assembler.complete({ responseIndex: 0, message: message('second') });
    expect(display([...events, ...end]).text).toBe('second');
  });

  test('a response never seen streaming arrives whole at its end: reasoning, then text', () => {
    const end = new LiveTextAssembler().complete({ responseIndex: 2, message: message('answer', 'thought') });
    expect(end).toEqual([
      { kind: 'delta', responseIndex: 2, channel: 'reasoning', offset: 0, delta: 'thought' },
      { kind: 'delta', responseIndex: 2, channel: 'text', offset: 0, delta: 'answer' },
    ]);
  });

  test('the window never starts inside a surrogate pair', () => {
    const text = `a${'😀'.repeat(4)}`;
    for (let windowChars = 1; windowChars <= text.length; windowChars++) {
      const { from, tail } = tailOf({ text, windowChars });
      expect(from + tail.length).toBe(text.length);
      // A lone low surrogate at the start would be half a character.
      const first = tail.charCodeAt(0);
      expect(first >= 0xdc00 && first <= 0xdfff).toBe(false);
    }
  });

  test('whatever snapshots a watcher happens to see, its deltas are clean and end as the recorded text', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const random = mulberry32(seed);
      const windowChars = 1 + Math.floor(random() * 40);
      const assembler = new LiveTextAssembler();
      const events: TurnWatchEvent[] = [];
      let text = '';
      let reasoning = '';
      for (let step = 0; step < 60; step++) {
        const piece = 'xyz0123456789'.slice(0, 1 + Math.floor(random() * 12));
        if (random() < 0.3) reasoning += piece;
        else text += piece;
        // The watcher looks at some moments only (and sometimes twice at the same one).
        const looks = random() < 0.5 ? 0 : random() < 0.8 ? 1 : 2;
        for (let i = 0; i < looks; i++)
          events.push(
            ...assembler.snapshot({ stream: 's', details: snapshotOf({ text, reasoning, windowChars }) }),
          );
      }
      events.push(...assembler.complete({ responseIndex: 0, message: message(text, reasoning) }));
      expect({ seed, ...display(events) }).toEqual({ seed, text, reasoning });
    }
  });
});
