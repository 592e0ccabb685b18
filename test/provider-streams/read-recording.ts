import type { Provider } from './corpus';
import { readAnthropicStream } from './read-anthropic-stream';
import { readOpenAiChatStream } from './read-openai-chat-stream';
import { readOpenAiResponsesStream } from './read-openai-responses-stream';
import type { RecordedResponse } from './recorded-response';

/** What a recorded response body says, read by the reader of its wire format. */
export function readRecording(provider: Provider, body: Buffer | string): RecordedResponse {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  switch (provider) {
    case 'anthropic':
      return readAnthropicStream(text);
    case 'openai-responses':
      return readOpenAiResponsesStream(text);
    case 'openai-chat':
    case 'openai-compatible':
      return readOpenAiChatStream(text);
    default: {
      const unexpected: never = provider;
      throw new Error(`no reader for ${String(unexpected)}`);
    }
  }
}
