import { modelRequestKey, toolCallKey } from './idempotency-key';

/** A small deterministic generator of ids made of the characters that matter here. */
function* ids(seed: number, count: number): Generator<string> {
  const alphabet = ['a', 'b', '/', '%', '2', 'F', 'model', '0'];
  let state = seed;
  for (let n = 0; n < count; n++) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    let id = '';
    for (let length = 1 + (state % 4), i = 0; i < length; i++) {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      id += alphabet[state % alphabet.length];
    }
    yield id;
  }
}

describe('idempotency keys (revision 2)', () => {
  test('two different (turn, call) pairs, and a call and a model request, never share a key', () => {
    const seen = new Map<string, string>();
    const turns = [...ids(1, 40)];
    const calls = [...ids(2, 40)];
    for (const turnId of turns) {
      for (const toolCallId of calls) {
        const key = toolCallKey({ revision: 2, turnId, toolCallId });
        const source = `tool ${JSON.stringify([turnId, toolCallId])}`;
        expect(seen.get(key) ?? source).toBe(source);
        seen.set(key, source);
      }
      for (let responseIndex = 0; responseIndex < 3; responseIndex++) {
        const key = modelRequestKey({ revision: 2, turnId, responseIndex });
        const source = `model ${JSON.stringify([turnId, responseIndex])}`;
        expect(seen.get(key) ?? source).toBe(source);
        seen.set(key, source);
      }
    }
  });

  test('the examples that collided under revision 1 do not collide', () => {
    expect(toolCallKey({ revision: 1, turnId: 'X', toolCallId: 'p/q' })).toBe(
      toolCallKey({ revision: 1, turnId: 'X/p', toolCallId: 'q' }),
    );
    expect(toolCallKey({ revision: 2, turnId: 'X', toolCallId: 'p/q' })).not.toBe(
      toolCallKey({ revision: 2, turnId: 'X/p', toolCallId: 'q' }),
    );
    expect(toolCallKey({ revision: 2, turnId: 'X', toolCallId: 'model/0' })).not.toBe(
      modelRequestKey({ revision: 2, turnId: 'X', responseIndex: 0 }),
    );
  });

  test('keys of ids without / or % read the same under both revisions', () => {
    expect(toolCallKey({ revision: 2, turnId: 'turn-1', toolCallId: 'call_7' })).toBe('turn-1/call_7');
    expect(modelRequestKey({ revision: 2, turnId: 'turn-1', responseIndex: 3 })).toBe('turn-1/model/3');
  });
});
