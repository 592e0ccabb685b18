import { responsesCarriedBack } from './responses-carried-back';

/** The replay server answers the step a request asks for, read from what it carries back. */
describe('the step a request asks for', () => {
  test('counts assistant messages in chat-completions and Anthropic messages', () => {
    const body = {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'a' },
        { role: 'tool', content: 'r' },
        { role: 'assistant', content: 'b' },
      ],
    };
    expect(responsesCarriedBack('openai-chat', body)).toBe(2);
    expect(responsesCarriedBack('anthropic', body)).toBe(2);
  });

  test('counts each run of model-written Responses items as one response: reasoning, message and calls together', () => {
    const input = [
      { role: 'user', content: 'hi' },
      { type: 'reasoning', id: 'rs_1' },
      { role: 'assistant', content: [] },
      { type: 'function_call', call_id: 'c1' },
      { type: 'function_call', call_id: 'c2' },
      { type: 'function_call_output', call_id: 'c1' },
      { type: 'function_call_output', call_id: 'c2' },
      { type: 'function_call', call_id: 'c3' },
      { type: 'function_call_output', call_id: 'c3' },
    ];
    expect(responsesCarriedBack('openai-responses', { input })).toBe(2);
    expect(responsesCarriedBack('openai-responses', { input: input.slice(0, 1) })).toBe(0);
  });
});
