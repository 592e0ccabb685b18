import { type Conversation, readCorpus } from './corpus';
import { readRecording } from './read-recording';
import { splitAtFinalEvent } from './replay-server';
import { readServerSentEvents } from './server-sent-events';

/** The independent readers, on the recordings whose quirks they exist for. */
const corpus = readCorpus();
function recorded(id: string, step = 1) {
  const conversation: Conversation | undefined = corpus.find((c) => c.id === id);
  const body = conversation?.steps[step - 1];
  if (!conversation || !body) throw new Error(`no recording ${id} step ${step}`);
  return readRecording(conversation.provider, body);
}

describe('reading server-sent events', () => {
  test('skips comment lines, joins data lines, names events, and drops the space after a colon only once', () => {
    expect(
      readServerSentEvents(
        ': OPENROUTER PROCESSING\n\nevent: error\ndata: {"a":\ndata:  1}\n\ndata: [DONE]\n\n',
      ),
    ).toEqual([{ event: 'error', data: '{"a":\n 1}' }, { data: '[DONE]' }]);
  });

  test.each(corpus.flatMap((c) => c.steps.map((body, index) => [`${c.id} #${index + 1}`, body] as const)))(
    'splitting %s before its final event loses no byte and leaves one event to hold back',
    (_name, body) => {
      const [head, finalEvent] = splitAtFinalEvent(body);
      expect(Buffer.concat([head, finalEvent]).equals(body)).toBe(true);
      expect(readServerSentEvents(finalEvent.toString('utf8'))).toHaveLength(1);
    },
  );
});

describe('reading chat-completions recordings', () => {
  test("assembles a call by its index, unmoved by Qwen's trailing delta with an empty id", () => {
    expect(recorded('openai-compatible/qwen3-max-trailing-empty-tool-delta').calls).toEqual([
      {
        id: 'call_eee11723464a4b9eb8cee71d',
        name: 'weather',
        arguments: '{"location": "San Francisco"}',
        complete: true,
      },
    ]);
  });

  test("reads OpenRouter's error chunk that follows a length finish", () => {
    expect(recorded('openai-compatible/openrouter-minimax-error-after-length')).toMatchObject({
      finishReason: 'length',
      error: { code: '400', message: 'Token limit reached' },
      reasoning: 'We need to respond to a greeting. The user',
    });
  });

  test("reads Groq's error event with its code", () => {
    expect(recorded('openai-compatible/groq-gpt-oss-tool-use-failed-error').error).toMatchObject({
      code: 'tool_use_failed',
    });
  });

  test('takes a refusal as the answer, stopped by a content filter', () => {
    expect(recorded('openai-chat/gpt-4o-refusal')).toMatchObject({
      text: "I'm very sorry, but I can't assist with that request.",
      finishReason: 'content-filter',
    });
  });
});

describe('reading Anthropic recordings', () => {
  test('takes the block’s own input for a tool_use without input deltas', () => {
    expect(recorded('anthropic/haiku-4.5-empty-tool-input').calls).toMatchObject([
      { name: 'sayHello', arguments: '{}', complete: true },
    ]);
  });

  test('marks a call that max_tokens cut off mid-arguments as not runnable', () => {
    const response = recorded('anthropic/sonnet-4.5-max-tokens-mid-tool-args');
    expect(response.calls.map((call) => call.complete)).toEqual([false]);
    expect(response.finishReason).toBe('length');
  });

  test('counts cache reads and writes into the input tokens', () => {
    expect(recorded('anthropic/sonnet-4.6-cache-read-max-tokens').usage).toEqual({
      inputTokens: 3 + 18_639,
      outputTokens: 1,
    });
  });

  test('keeps a thinking block that has only a signature, and redacted blocks with their data', () => {
    expect(recorded('anthropic/sonnet-5-signature-only-thinking').reasoningMetadata).toEqual([
      { kind: 'anthropic-thinking', thinking: '', signature: expect.stringMatching(/^EsEC/) },
    ]);
    expect(recorded('anthropic/sonnet-4.5-redacted-thinking').reasoningMetadata.map((m) => m.kind)).toEqual([
      'anthropic-redacted-thinking',
      'anthropic-redacted-thinking',
    ]);
  });

  test('leaves a server tool call to the provider, noting that its result came', () => {
    const response = recorded('anthropic/sonnet-4.6-server-tool-then-client-tool');
    expect(response.calls.map((call) => call.name)).toEqual(['get_exchange_rate']);
    expect(response.serverToolUses).toEqual([{ id: 'srvtoolu_01S5swZdBmTzLDVzwcT5LbHp', resultCame: true }]);
  });
});

describe('reading Responses recordings', () => {
  test('reads a reasoning item with its summary and encrypted content, then the call it led to', () => {
    const response = recorded('openai-responses/gpt-5.1-codex-reasoning-3-tools-then-text');
    expect(response.reasoningMetadata).toEqual([
      {
        kind: 'openai-reasoning-item',
        id: 'rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9',
        encryptedContent: expect.stringMatching(/^gAAAAA/),
        summary: [response.reasoning],
      },
    ]);
    expect(response).toMatchObject({
      finishReason: 'tool-calls',
      calls: [{ name: 'calculator', complete: true }],
    });
  });

  test('reads an error event and the failed response after it', () => {
    expect(recorded('openai-responses/gpt-5-nano-insufficient-quota-error')).toMatchObject({
      error: {
        code: 'insufficient_quota',
        message: expect.stringMatching(/^You exceeded your current quota/),
      },
      finishReason: 'error',
    });
  });
});
