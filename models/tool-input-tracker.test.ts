import { ToolInputTracker } from './tool-input-tracker';

function feed(tracker: ToolInputTracker, id: string, pieces: readonly string[]) {
  return pieces.map((piece) => tracker.delta(id, piece));
}

describe('ToolInputTracker', () => {
  it('reports a call on the delta that closes its JSON object, not before', () => {
    const tracker = new ToolInputTracker();
    tracker.start({ id: 'c1', toolName: 'read_file', textEncoded: false });
    expect(feed(tracker, 'c1', [' {"path": "a}', '{b\\"', '", "n": [1, {"x": 2}]', '}'])).toEqual([
      undefined,
      undefined,
      undefined,
      { toolCallId: 'c1', toolName: 'read_file', input: ' {"path": "a}{b\\"", "n": [1, {"x": 2}]}' },
    ]);
    expect(tracker.alreadyEmitted('c1')).toBe(true);
  });

  it('leaves malformed, non-object and text-encoded input to the provider’s own tool-call part', () => {
    const tracker = new ToolInputTracker();
    tracker.start({ id: 'bad', toolName: 't', textEncoded: false });
    tracker.start({ id: 'arr', toolName: 't', textEncoded: false });
    tracker.start({ id: 'text', toolName: 't', textEncoded: true });
    expect(feed(tracker, 'bad', ['{"path": a.txt}'])).toEqual([undefined]);
    expect(feed(tracker, 'arr', ['[1, 2]'])).toEqual([undefined]);
    expect(feed(tracker, 'text', ['{}'])).toEqual([undefined]);
    for (const id of ['bad', 'arr', 'text']) expect(tracker.alreadyEmitted(id)).toBe(false);
  });

  it('ignores deltas for calls it was not told about', () => {
    expect(new ToolInputTracker().delta('nope', '{}')).toBeUndefined();
  });
});
