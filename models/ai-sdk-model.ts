import type { SharedV4ProviderOptions } from '@ai-sdk/provider';
import {
  isBlockBoundary,
  ModelError,
  type ModelRequest,
  type ModelStreamPart,
  type ProviderMetadata,
  type TurnModel,
  type Usage,
} from '../core';
import { classifyProviderError, unfinishedStreamError } from './classify-provider-error';
import { assertToolFilesSupported, assertUrlsSupported, unsupportedFileError } from './file-support';
import { structuredOutputAsk, withInstruction } from './structured-output-ask';
import {
  assertSupportedLanguageModel,
  openLanguageModelStream,
  type PortableCallOptions,
  type SupportedLanguageModel,
  type SupportedStreamPart,
} from './supported-language-model';
import { toLanguageModelPrompt, toLanguageModelTools } from './to-language-model-prompt';
import { ToolInputTracker } from './tool-input-tracker';

export interface AiSdkModelOptions {
  /** How the model is named in events, metrics and the dashboard. */
  name: string;
  /**
   * Any AI SDK provider model (`openai.chat('gpt-4.1')`, `anthropic('claude-…')`, …) of spec v4
   * (AI SDK 7 providers) or v3 (AI SDK 6 providers); another spec is refused here.
   */
  model: SupportedLanguageModel;
  providerOptions?: SharedV4ProviderOptions;
  maxOutputTokens?: number;
  temperature?: number;
  /** Values blanked out of error messages (createModel passes the API key). */
  secrets?: readonly string[];
}

/**
 * Puts an AI SDK provider model behind our `TurnModel` port. One request is one `doStream` call —
 * no retries here: the host retries (a Temporal activity, the in-process executor) using the
 * `ModelError` classification. The request's idempotency key goes out as the `Idempotency-Key`
 * header, so a provider (or proxy) that honours it answers a retried request once.
 */
export function aiSdkModel({
  name,
  model,
  providerOptions,
  maxOutputTokens,
  temperature,
  secrets,
}: AiSdkModelOptions): TurnModel {
  assertSupportedLanguageModel({ model });
  const provider = model.provider;
  // Anthropic's Messages API refuses a tool_use whose input is not an object.
  const objectToolInputs = provider.startsWith('anthropic');
  // OpenAI's Responses API (and Azure's) continues from a response id (`previous_response_id`).
  const continuesByResponseId = provider.endsWith('.responses');
  const cannotContinue = continuesByResponseId ? storeOffReason(providerOptions) : undefined;
  return {
    name,
    ...(cannotContinue !== undefined ? { cannotContinue } : {}),
    async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
      // On Temporal the turn's settings are not the worker's to check up front: refused here, at once.
      if (request.continuation && cannotContinue !== undefined)
        throw new ModelError(
          `${provider} cannot continue from response ${request.continuation.previousResponseId}: ${cannotContinue}; start the turn with continuation 'full'`,
          false,
        );
      // Parts handed on so far: a failure mid-stream says how far the response got.
      let handedOn = 0;
      const classify = (error: unknown, midStream = true) =>
        classifyProviderError({
          error,
          provider,
          signal: request.signal,
          secrets,
          ...(midStream ? { partsReceived: handedOn } : {}),
        });
      // The Responses API keeps the conversation: a continuation sends what came after the receipt,
      // and the system messages (instructions are not carried over from the previous response).
      const continued = request.continuation && continuesByResponseId ? request.continuation : undefined;
      const messages = continued
        ? [...request.messages.filter((m) => m.role === 'system'), ...continued.messages]
        : request.messages;
      const callProviderOptions = continued
        ? {
            ...providerOptions,
            openai: { ...providerOptions?.openai, previousResponseId: continued.previousResponseId },
          }
        : providerOptions;
      // A structured answer: how this provider is best asked for it (see structuredOutputAsk).
      const ask = request.output
        ? structuredOutputAsk({
            model,
            output: request.output,
            withTools: request.tools.length > 0,
            providerOptions: callProviderOptions,
          })
        : { providerOptions: callProviderOptions };
      const options: PortableCallOptions = {
        prompt: withInstruction(toLanguageModelPrompt({ messages, objectToolInputs }), ask.instruction),
        ...(request.tools.length > 0 ? { tools: toLanguageModelTools(request.tools) } : {}),
        abortSignal: request.signal,
        headers: { 'Idempotency-Key': request.idempotencyKey },
        ...(ask.providerOptions ? { providerOptions: ask.providerOptions } : {}),
        ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
        ...(temperature !== undefined ? { temperature } : {}),
        ...(ask.responseFormat ? { responseFormat: ask.responseFormat } : {}),
      };
      let stream: ReadableStream<SupportedStreamPart>;
      try {
        assertToolFilesSupported({ provider, messages });
        await assertUrlsSupported({ model, messages });
        stream = await openLanguageModelStream({ model, options });
      } catch (error) {
        throw unsupportedFileError({ error, provider, messages }) ?? classify(error, false);
      }
      const reader = stream.getReader();
      const tracker = new ToolInputTracker();
      // A call the provider completed itself whose arguments are not whole JSON waits for the
      // finish: the OpenAI providers complete every unfinished call when the stream closes, cut-off
      // arguments included, even when no finish reason came — a stream that stops cleanly
      // mid-arguments must not hand on more than a reset at the same point would. (Whole ones,
      // like Anthropic's `{}` for a call without arguments, go at once: they can start now.)
      const held: ModelStreamPart[] = [];
      let finished = false;
      let done = false;
      try {
        while (true) {
          let next: Awaited<ReturnType<typeof reader.read>>;
          try {
            next = await reader.read();
          } catch (error) {
            throw classify(error);
          }
          if (next.done) {
            done = true;
            // Anthropic's provider sends no finish part when message_delta never came.
            if (!finished) throw unfinishedStreamError({ provider, partsReceived: handedOn });
            return;
          }
          const part = next.value;
          if (part.type === 'error') throw classify(part.error);
          if (part.type === 'finish') {
            // The OpenAI chat provider sends its finish even when no finish reason arrived.
            if (!saidWhyItStopped(part.finishReason))
              throw unfinishedStreamError({ provider, partsReceived: handedOn });
            finished = true;
            handedOn += held.length;
            yield* held.splice(0);
          }
          for (const out of toStreamParts(part, tracker)) {
            if (out.type === 'tool-call' && part.type === 'tool-call' && !finished && !isJson(out.input)) {
              held.push(out);
              continue;
            }
            // A receipt or a block's start or end is no content: it does not say how far the response got.
            if (out.type !== 'response-id' && !isBlockBoundary(out)) handedOn += 1;
            yield out;
          }
        }
      } finally {
        // Stopping early (consumer returned, error) must close the HTTP response, not leave it streaming.
        if (!done) reader.cancel().catch(() => {});
        reader.releaseLock();
      }
    },
  };
}

/** Why a Responses model keeps no responses to continue from: `store: false` in its provider options. */
function storeOffReason(options: SharedV4ProviderOptions | undefined): string | undefined {
  for (const [key, value] of Object.entries(options ?? {}))
    if (value?.store === false)
      return `providerOptions.${key}.store is false, so the provider keeps no response to continue from`;
  return undefined;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a finish part carries the provider's own reason. Reasons are `{ unified, raw }`. AI SDK 7
 * providers say `interrupted` when the stream closed cleanly before the provider's completion
 * signal; AI SDK 6's OpenAI chat provider filled in `{ unified: 'other', raw: undefined }` instead.
 */
function saidWhyItStopped(reason: unknown): boolean {
  if (typeof reason !== 'object' || reason === null) return true;
  if ('unified' in reason && reason.unified === 'interrupted') return false;
  if (!('raw' in reason)) return true;
  return reason.raw !== undefined || !('unified' in reason) || reason.unified !== 'other';
}

/**
 * One AI SDK stream part as ours (none, one, or — for an eagerly completed call — one early).
 * Starts and ends of text blocks, metadata, sources and files carry nothing we record.
 */
function toStreamParts(part: SupportedStreamPart, tracker: ToolInputTracker): ModelStreamPart[] {
  switch (part.type) {
    case 'text-start':
    case 'text-end':
    case 'reasoning-start':
    case 'reasoning-end':
      return [{ type: part.type, id: part.id, ...metadataOf(part) }];
    case 'text-delta':
    case 'reasoning-delta':
      // An empty delta may carry the block's metadata: Anthropic's thinking signature comes so.
      return part.delta === '' && !part.providerMetadata
        ? []
        : [{ type: part.type, delta: part.delta, id: part.id, ...metadataOf(part) }];
    case 'tool-input-start':
      // v3 providers of AI SDK 6's later releases send `inputEncoding` too, though v3's types lack it.
      if (!part.providerExecuted)
        tracker.start({
          id: part.id,
          toolName: part.toolName,
          textEncoded: 'inputEncoding' in part && part.inputEncoding === 'text',
          ...metadataOf(part),
        });
      return [];
    case 'tool-input-delta': {
      const call = tracker.delta(part.id, part.delta);
      return call ? [{ type: 'tool-call', ...call }] : [];
    }
    case 'tool-call':
      // Provider-executed calls (web search and the like) are the provider's business, not ours to run.
      if (part.providerExecuted) return [];
      if (tracker.alreadyEmitted(part.toolCallId)) {
        // Handed on early; what the provider attached on finishing it still goes back with it.
        const late = metadataOf(part).providerMetadata;
        return late
          ? [{ type: 'tool-call-metadata', toolCallId: part.toolCallId, providerMetadata: late }]
          : [];
      }
      return [
        {
          type: 'tool-call',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: part.input,
          ...metadataOf(part),
        },
      ];
    case 'finish':
      return [
        { type: 'finish', finishReason: finishReasonOf(part.finishReason), usage: usageOf(part.usage) },
      ];
    case 'response-metadata':
      // The provider's id for the response: the turn records it as the request's receipt.
      return typeof part.id === 'string' && part.id !== '' ? [{ type: 'response-id', id: part.id }] : [];
    default:
      return [];
  }
}

/**
 * A part's provider metadata, when it has some. The providers build it from the JSON they
 * received, so it is JSON (the types allow `undefined` values, which serialising drops).
 */
function metadataOf(part: { providerMetadata?: unknown }): { providerMetadata?: ProviderMetadata } {
  const metadata = part.providerMetadata;
  return typeof metadata === 'object' && metadata !== null && Object.keys(metadata).length > 0
    ? { providerMetadata: metadata as ProviderMetadata }
    : {};
}

/** v3 and v4 send `{ unified, raw }`; older providers sent the string itself. */
function finishReasonOf(reason: unknown): string {
  if (typeof reason === 'string') return reason;
  if (
    typeof reason === 'object' &&
    reason !== null &&
    'unified' in reason &&
    typeof reason.unified === 'string'
  )
    return reason.unified;
  return 'unknown';
}

/** v3 and v4 usage counts are `{ total, … }` objects; v2 ones were plain numbers. Missing counts are 0. */
function usageOf(usage: unknown): Usage {
  const record = typeof usage === 'object' && usage !== null ? (usage as Record<string, unknown>) : {};
  return { inputTokens: tokenCount(record.inputTokens), outputTokens: tokenCount(record.outputTokens) };
}

function tokenCount(value: unknown): number {
  const count =
    typeof value === 'object' && value !== null && 'total' in value ? value.total : (value as unknown);
  return typeof count === 'number' && Number.isFinite(count) && count > 0 ? Math.round(count) : 0;
}
