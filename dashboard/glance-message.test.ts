import { messageSchema } from '../core';
import { glanceMessage } from './glance-message';

describe("a message at a glance (the conversation page's transcript)", () => {
  test('cuts long arguments and results to a line with how much is left, names files instead of sending them, leaves out reasoning, keeps answers and short parts whole', () => {
    const long = 'x'.repeat(10_000);
    const assistant = glanceMessage({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: long, providerMetadata: { anthropic: { signature: long } } },
        { type: 'text', text: long },
        { type: 'tool-call', toolCallId: 'a', toolName: 'write', input: { body: long } },
        { type: 'tool-call', toolCallId: 'b', toolName: 'read', input: { path: 'a.txt' } },
      ],
    });
    expect(assistant).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: long },
        {
          type: 'tool-call',
          toolCallId: 'a',
          toolName: 'write',
          input: `{"body":"${'x'.repeat(231)}… (9771 more characters on the turn's page)`,
        },
        { type: 'tool-call', toolCallId: 'b', toolName: 'read', input: { path: 'a.txt' } },
      ],
    });
    const tool = glanceMessage({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'a',
          toolName: 'shot',
          output: {
            status: 'ok',
            content: long,
            attempts: 1,
            files: [{ type: 'file', mediaType: 'image/png', data: { base64: 'A'.repeat(4_000) } }],
          },
        },
      ],
    });
    expect(tool.role === 'tool' && tool.content[0]?.output).toEqual({
      status: 'ok',
      content: `${'x'.repeat(240)}… (9760 more characters on the turn's page) [image/png, 3.0 KB]`,
      attempts: 1,
      truncated: true,
    });
    const user = glanceMessage({
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        {
          type: 'file',
          mediaType: 'application/pdf',
          filename: 'q3.pdf',
          data: { url: 'https://x.test/q3.pdf' },
        },
      ],
    });
    expect(user).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'text', text: '[application/pdf q3.pdf at https://x.test/q3.pdf]' },
      ],
    });
    // Each is still a message the API's schema accepts.
    for (const message of [assistant, tool, user])
      expect(messageSchema.safeParse(message).success).toBe(true);
  });
});
