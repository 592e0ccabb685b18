import type { Message } from '../schema/messages';
import { compactionRequestMessages, requestContext, summaryMessage } from './request-context';

const system: Message = { role: 'system', content: 'be terse' };
const user = (content: string): Message => ({ role: 'user', content });
const said = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });

describe('what a request sends', () => {
  const messages = [system, user('go'), said('a0'), user('steer'), said('a1'), user('more')];
  const compaction = { summary: 'so far', through: 4, inputLength: 2 };

  test('once compacted: the input’s system messages, the summary, the rest of the input, then everything from the point on', () => {
    expect(requestContext({ messages, earlier: [user('earlier')], compaction }).messages).toEqual([
      system,
      summaryMessage('so far'),
      user('go'),
      said('a1'),
      user('more'),
    ]);
  });

  test('a continuation’s first message moves to where it now stands: after the earlier turns, or after the summary and the input', () => {
    const continuation = { previousResponseId: 'resp_1', fromMessage: 5 };
    const plain = requestContext({ messages, earlier: [user('e1'), user('e2')], continuation });
    expect(plain.messages.slice(plain.continuation?.fromMessage)).toEqual([user('more')]);
    const compacted = requestContext({ messages, earlier: [], compaction, continuation });
    expect(compacted.messages.slice(compacted.continuation?.fromMessage)).toEqual([user('more')]);
  });

  test('a summary request has nothing to summarise in a turn with no earlier turns, no summary and nothing before its first response', () => {
    const op = { messages: [user('go'), said('a0')], through: 1, inputLength: 1, instruction: 'summarise' };
    expect(compactionRequestMessages({ op, earlier: [] })).toBeUndefined();
    expect(compactionRequestMessages({ op, earlier: [user('earlier')] })).toEqual([
      user('earlier'),
      user('go'),
      user('summarise'),
    ]);
  });
});
