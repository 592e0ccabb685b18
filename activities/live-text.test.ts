import { LiveText } from './live-text';

describe('the live text a model activity heartbeats', () => {
  test('carries each channel whole while it fits the window, then its tail with the offset it starts at', () => {
    const live = new LiveText({ responseIndex: 3, attempt: 2, windowChars: 8 });
    live.add({ type: 'reasoning-delta', delta: 'think' });
    live.add({ type: 'text-delta', delta: 'Hello' });
    expect(live.details()).toEqual({
      liveText: 1,
      responseIndex: 3,
      attempt: 2,
      text: { from: 0, tail: 'Hello' },
      reasoning: { from: 0, tail: 'think' },
    });
    live.add({ type: 'text-delta', delta: ', world' });
    expect(live.details().text).toEqual({ from: 4, tail: 'o, world' });
  });

  test('stays the same object from one delta to the next, whatever other parts stream between', () => {
    const live = new LiveText({ responseIndex: 0, attempt: 1 });
    live.add({ type: 'text-delta', delta: 'a' });
    const before = live.details();
    live.add({ type: 'tool-call', toolCallId: 'c', toolName: 't', input: '{}' });
    expect(live.details()).toBe(before);
    live.add({ type: 'text-delta', delta: 'b' });
    expect(live.details()).not.toBe(before);
  });
});
