import { turnStartMetadata } from './turn-start-metadata';

describe('turnStartMetadata', () => {
  test('the summary names the model and the first line of the input', () => {
    const { staticSummary, staticDetails } = turnStartMetadata({
      turnId: 't1',
      conversationId: 'conv-7',
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'What did I plan for Monday?\nLook in my notes.' }],
    });
    expect(staticSummary).toBe('gpt-4.1 · What did I plan for Monday?');
    expect(staticDetails).toContain('`t1`');
    expect(staticDetails).toContain('conversation: `conv-7`');
    expect(staticDetails).toContain('input: 1 message');
  });

  test('with a conversation as input, the line is the last user message’s, not the system prompt’s', () => {
    const { staticSummary } = turnStartMetadata({
      turnId: 't2',
      model: 'scripted',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: [{ type: 'text', text: 'first answer' }] },
        { role: 'user', content: 'second question' },
      ],
    });
    expect(staticSummary).toBe('scripted · second question');
  });

  test('a long input gives a summary of one short line', () => {
    const { staticSummary } = turnStartMetadata({
      turnId: 't3',
      model: 'scripted',
      messages: [{ role: 'user', content: 'z'.repeat(1 << 20) }],
    });
    expect(staticSummary.length).toBeLessThanOrEqual(120);
    expect(staticSummary.endsWith('…')).toBe(true);
  });
});
