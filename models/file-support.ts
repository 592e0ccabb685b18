import { UnsupportedFunctionalityError } from '@ai-sdk/provider';
import { describeFile, type FilePart, type Message, ModelError } from '../core';
import type { SupportedLanguageModel } from './supported-language-model';

/** Every file part of the messages, with where it is (`message 3`, `message 5, output of call_1`). */
export function filesOf(messages: readonly Message[]): { part: FilePart; where: string }[] {
  return messages.flatMap((message, index) => {
    const where = `message ${index + 1}`;
    if (message.role === 'user' && typeof message.content !== 'string')
      return message.content.flatMap((part) => (part.type === 'file' ? [{ part, where }] : []));
    if (message.role === 'tool')
      return message.content.flatMap((result) =>
        (result.output.files ?? []).map((part) => ({
          part,
          where: `${where}, output of ${result.toolCallId}`,
        })),
      );
    return [];
  });
}

/**
 * Refuses, before anything is sent, a file given by URL that the model does not take by URL (its
 * `supportedUrls`): the AI SDK's `generateText` would download it, and durable-turns never fetches
 * a URL itself (no server-side fetch, no SSRF surface).
 */
export async function assertUrlsSupported({
  model,
  messages,
}: {
  model: SupportedLanguageModel;
  messages: readonly Message[];
}): Promise<void> {
  const byUrl = filesOf(messages).filter(({ part }) => 'url' in part.data);
  if (byUrl.length === 0) return;
  const supported = await model.supportedUrls;
  for (const { part, where } of byUrl) {
    const url = 'url' in part.data ? part.data.url : '';
    const patterns = Object.entries(supported).flatMap(([mediaType, regexes]) =>
      mediaTypeMatches(mediaType, part.mediaType) ? regexes : [],
    );
    if (patterns.some((regex) => regex.test(url))) continue;
    const takes = Object.keys(supported);
    throw new ModelError(
      `${model.provider} does not take ${describeFile(part)} (${where}) by URL (${
        takes.length > 0 ? `it takes URLs for ${takes.join(', ')}` : 'it takes no URLs'
      }); durable-turns does not fetch URLs itself: send the file's bytes instead (not sent, not retried)`,
      false,
    );
  }
}

/**
 * Refuses a tool output with files for a Chat Completions API (OpenAI's and the OpenAI-compatible
 * servers'): its tool messages hold text only, and the AI SDK would send the file's base64 as text
 * (tokens, and a model that never sees the picture). The Responses API and Anthropic take them.
 */
export function assertToolFilesSupported({
  provider,
  messages,
}: {
  provider: string;
  messages: readonly Message[];
}): void {
  if (!provider.endsWith('.chat')) return;
  const inResults = filesOf(messages).filter(({ where }) => where.includes('output of'));
  const first = inResults[0];
  if (!first) return;
  throw new ModelError(
    `${provider} cannot take files in tool results (a Chat Completions tool message holds text only): ${inResults
      .map(({ part, where }) => `${describeFile(part)} (${where})`)
      .join(
        '; ',
      )}; use the Responses API or another provider for tools that return files (not sent, not retried)`,
    false,
  );
}

/**
 * The provider's refusal of a part it cannot take (thrown while it builds the request, before
 * anything is sent), naming our parts of that kind; undefined for any other error.
 */
export function unsupportedFileError({
  error,
  provider,
  messages,
}: {
  error: unknown;
  provider: string;
  messages: readonly Message[];
}): ModelError | undefined {
  if (!UnsupportedFunctionalityError.isInstance(error)) return undefined;
  const files = filesOf(messages);
  const named = files.filter(({ part }) => error.functionality.includes(part.mediaType));
  const parts = (named.length > 0 ? named : files).map(
    ({ part, where }) => `${describeFile(part)} (${where})`,
  );
  return new ModelError(
    `${provider} cannot take ${error.functionality}${parts.length > 0 ? `: ${parts.join('; ')}` : ''} (not sent, not retried)`,
    false,
  );
}

/** `image/*` takes `image/png`; `*` and `*\/*` take anything; otherwise the types must be equal. */
function mediaTypeMatches(pattern: string, mediaType: string): boolean {
  if (pattern === '*' || pattern === '*/*') return true;
  if (pattern.endsWith('/*')) return mediaType.startsWith(pattern.slice(0, -1));
  return pattern === mediaType;
}
