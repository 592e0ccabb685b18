import { transcriptWithToolResult } from '../test/support/models/wire-test-kit';
import { toLanguageModelPrompt, toLanguageModelTools } from './to-language-model-prompt';

describe('toLanguageModelPrompt', () => {
  it('converts every message kind, tool results rendered as text by call id', () => {
    expect(toLanguageModelPrompt({ messages: transcriptWithToolResult })).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: [{ type: 'text', text: 'Read a.txt' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading it.' },
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'read_file', input: { path: 'a.txt' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_1',
            toolName: 'read_file',
            output: { type: 'text', value: '{"text":"hello"}' },
          },
        ],
      },
    ]);
  });

  it("sends each part's provider metadata back as its provider options, keeping parts that are only metadata", () => {
    const signature = { anthropic: { signature: 'sig' } };
    const prompt = toLanguageModelPrompt({
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'plan', providerMetadata: signature },
            { type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: 'x' } } },
            { type: 'reasoning', text: '' },
            { type: 'text', text: '', providerMetadata: { openai: { itemId: 'msg_1' } } },
            {
              type: 'tool-call',
              toolCallId: 'c1',
              toolName: 'read_file',
              input: { path: 'a' },
              providerMetadata: { google: { thoughtSignature: 't' } },
            },
          ],
        },
      ],
    });
    expect(prompt).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'plan', providerOptions: signature },
          { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: 'x' } } },
          { type: 'text', text: '', providerOptions: { openai: { itemId: 'msg_1' } } },
          {
            type: 'tool-call',
            toolCallId: 'c1',
            toolName: 'read_file',
            input: { path: 'a' },
            providerOptions: { google: { thoughtSignature: 't' } },
          },
        ],
      },
    ]);
  });

  it('sends error and interrupted outputs as error text, with their kind and any notice', () => {
    const prompt = toLanguageModelPrompt({
      messages: [
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              toolName: 't',
              output: {
                status: 'error',
                content: 'boom',
                attempts: 2,
                errorType: 'tool-error',
                notice: 'Stop repeating.',
              },
            },
            {
              type: 'tool-result',
              toolCallId: 'c2',
              toolName: 't',
              output: { status: 'interrupted', content: 'turn cancelled', attempts: 0 },
            },
          ],
        },
      ],
    });
    expect(prompt).toEqual([
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 't',
            output: { type: 'error-text', value: '[error: tool-error] boom\n\nStop repeating.' },
          },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 't',
            output: { type: 'error-text', value: '[interrupted] turn cancelled' },
          },
        ],
      },
    ]);
  });

  it('parses tool-call input given as JSON text and keeps text that is not JSON as it is', () => {
    const prompt = toLanguageModelPrompt({
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 'a', toolName: 't', input: '{"x":1}' },
            { type: 'tool-call', toolCallId: 'b', toolName: 't', input: '{"x": oops' },
          ],
        },
      ],
    });
    expect(prompt[0]).toEqual({
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'a', toolName: 't', input: { x: 1 } },
        { type: 'tool-call', toolCallId: 'b', toolName: 't', input: '{"x": oops' },
      ],
    });
  });

  it('wraps input that is not a JSON object when the provider requires objects (Anthropic)', () => {
    const messages = [
      {
        role: 'assistant' as const,
        content: [
          { type: 'tool-call' as const, toolCallId: 'a', toolName: 't', input: '{"path": "a.t' },
          { type: 'tool-call' as const, toolCallId: 'b', toolName: 't', input: [1, 2] },
          { type: 'tool-call' as const, toolCallId: 'c', toolName: 't', input: { ok: true } },
        ],
      },
    ];
    expect(toLanguageModelPrompt({ messages, objectToolInputs: true })[0]).toEqual({
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'a', toolName: 't', input: { invalid_arguments: '{"path": "a.t' } },
        { type: 'tool-call', toolCallId: 'b', toolName: 't', input: { invalid_arguments: '[1,2]' } },
        { type: 'tool-call', toolCallId: 'c', toolName: 't', input: { ok: true } },
      ],
    });
  });

  it('keeps reasoning, drops empty text and skips an assistant message left empty', () => {
    expect(
      toLanguageModelPrompt({
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [{ type: 'text', text: '' }], partial: { reason: 'stream broke' } },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'thinking' },
              { type: 'text', text: '' },
              { type: 'text', text: 'hello' },
            ],
          },
        ],
      }),
    ).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'thinking' },
          { type: 'text', text: 'hello' },
        ],
      },
    ]);
  });
});

describe('toLanguageModelTools', () => {
  it('offers each tool as a function tool with its JSON Schema', () => {
    const inputSchema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
    expect(toLanguageModelTools([{ name: 'read_file', description: 'Reads a file', inputSchema }])).toEqual([
      { type: 'function', name: 'read_file', description: 'Reads a file', inputSchema },
    ]);
  });
});
