import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { type OpenAiResponsesReply, startOpenAiResponsesServer } from './openai-responses-server';
import type { TestServer } from './recording-server';

const callOptions: LanguageModelV4CallOptions = {
  prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [
    {
      type: 'function',
      name: 'read_file',
      description: 'Reads',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  ],
  providerOptions: { openai: { previousResponseId: 'resp_prev' } },
};

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function streamParts(replies: OpenAiResponsesReply[]): Promise<LanguageModelV4StreamPart[]> {
  server = await startOpenAiResponsesServer(replies);
  const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'test' }).responses('gpt-test');
  const { stream } = await model.doStream(callOptions);
  const parts: LanguageModelV4StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('startOpenAiResponsesServer', () => {
  it('streams text, a function call with streamed arguments, usage and the response id', async () => {
    const parts = await streamParts([
      {
        kind: 'stream',
        id: 'resp_abc',
        text: ['Let me ', 'look.'],
        toolCalls: [{ callId: 'call_1', name: 'read_file', argumentChunks: ['{"path":', '"a.txt"}'] }],
        usage: { inputTokens: 12, outputTokens: 7 },
      },
    ]);

    expect(parts.filter((p) => p.type === 'error')).toEqual([]);
    expect(parts).toContainEqual(expect.objectContaining({ type: 'response-metadata', id: 'resp_abc' }));
    const text = parts.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : [])).join('');
    expect(text).toBe('Let me look.');
    const inputDeltas = parts.flatMap((p) => (p.type === 'tool-input-delta' ? [p.delta] : []));
    expect(inputDeltas).toEqual(['{"path":', '"a.txt"}']);
    expect(parts).toContainEqual(
      expect.objectContaining({
        type: 'tool-call',
        toolCallId: 'call_1',
        toolName: 'read_file',
        input: '{"path":"a.txt"}',
      }),
    );
    const finish = parts.find((p) => p.type === 'finish');
    expect(finish).toMatchObject({
      finishReason: { unified: 'tool-calls' },
      usage: { inputTokens: { total: 12, cacheRead: 0 }, outputTokens: { total: 7, reasoning: 0 } },
      providerMetadata: { openai: { responseId: 'resp_abc' } },
    });

    const body = server?.requests[0]?.body as Record<string, unknown>;
    expect(body.previous_response_id).toBe('resp_prev');
    expect(body.stream).toBe(true);
    expect(server?.requests[0]?.path).toBe('/v1/responses');
  });

  it('finishes a text-only reply with stop and numbers default ids by request', async () => {
    const parts = await streamParts([{ kind: 'stream', text: ['done'] }]);

    expect(parts).toContainEqual(expect.objectContaining({ type: 'response-metadata', id: 'resp_0' }));
    expect(parts.some((p) => p.type === 'tool-call')).toBe(false);
    expect(parts.find((p) => p.type === 'finish')).toMatchObject({
      finishReason: { unified: 'stop', raw: undefined },
      usage: { inputTokens: { total: 0 }, outputTokens: { total: 0 } },
    });
  });
});
