import type { ModelResponse } from '../engine/turn-engine';
import type { PreparedCall } from '../schema/prepared-call';
import type { ProviderMetadata } from '../schema/provider-metadata';
import { prepareCall, type RawToolCall } from '../tools/prepare-call';
import type { ToolRegistry } from '../tools/tool-registry';
import type { CollectedResponse } from './collect-response';

/**
 * Turns a collected stream into the response the engine records: each call prepared against the
 * registry (ids made unique, arguments validated and size-checked, policy evaluated). The message
 * holds the prose only: the engine writes one tool-call part per call itself, so a call's
 * arguments travel once (in `calls`) between hosts. Calls already handed to the engine while the
 * response streamed (`streamedCallCount` of `prepared`) are not repeated.
 */
export function buildModelResponse({
  collected,
  registry,
  responseIndex,
  partialReason,
  priorCallIds = new Set(),
  prepared = [],
  streamedCallCount = 0,
  maxArgumentBytes,
}: {
  collected: CollectedResponse;
  registry: ToolRegistry;
  responseIndex: number;
  /** Set when the stream broke: the response is what arrived, marked partial. */
  partialReason?: string;
  /** Ids of the turn's earlier calls: an id is unique within the whole turn (it keys idempotency). */
  priorCallIds?: ReadonlySet<string>;
  /** The first calls, already prepared while the response streamed (preparing is the same either way). */
  prepared?: readonly PreparedCall[];
  /** How many of `prepared` the engine already accepted from the stream. */
  streamedCallCount?: number;
  maxArgumentBytes?: number;
}): ModelResponse {
  const used = new Set<string>(priorCallIds);
  const streamedCallMetadata: Record<string, ProviderMetadata> = {};
  const calls: PreparedCall[] = collected.calls.map((raw, position) => {
    const early = prepared[position];
    const call = early
      ? withLateMetadata(early, raw)
      : prepareCall({ registry, raw, position, responseIndex, usedIds: used, maxArgumentBytes });
    if (position < streamedCallCount && call.providerMetadata && call !== early)
      streamedCallMetadata[call.toolCallId] = call.providerMetadata;
    used.add(call.toolCallId);
    return call;
  });
  return {
    responseIndex,
    message: {
      role: 'assistant',
      // Empty text goes, unless the provider marked it (the AI SDK keeps those too).
      content: collected.parts.filter(
        (p) => p.type !== 'tool-call' && (p.type !== 'text' || p.text !== '' || p.providerMetadata),
      ),
      ...(partialReason ? { partial: { reason: partialReason } } : {}),
    },
    calls: streamedCallCount === 0 ? calls : calls.slice(streamedCallCount),
    ...(streamedCallCount === 0 ? {} : { streamedCallCount }),
    ...(Object.keys(streamedCallMetadata).length > 0 ? { streamedCallMetadata } : {}),
    usage: collected.usage,
    finishReason: partialReason ? 'error' : collected.finishReason,
    // A receipt only for a response that arrived whole: a continuation from a broken one would miss its end.
    ...(collected.responseId !== undefined && !partialReason ? { responseId: collected.responseId } : {}),
  };
}

/** A call prepared while it streamed, with the metadata its provider attached only when it finished it. */
function withLateMetadata(call: PreparedCall, raw: RawToolCall): PreparedCall {
  if (!raw.providerMetadata || call.providerMetadata === raw.providerMetadata) return call;
  return { ...call, providerMetadata: raw.providerMetadata };
}
