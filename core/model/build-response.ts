import type { ModelResponse } from '../engine/turn-engine';
import type { PreparedCall } from '../schema/prepared-call';
import { prepareCall } from '../tools/prepare-call';
import type { ToolRegistry } from '../tools/tool-registry';
import type { CollectedResponse } from './collect-response';

/**
 * Turns a collected stream into the response the engine records: each call prepared against the
 * registry (ids made unique, arguments validated, policy evaluated), and the assistant message's
 * tool-call parts written with the ids the outputs will carry, so the transcript always pairs.
 */
export function buildModelResponse({
  collected,
  registry,
  responseIndex,
  partialReason,
  priorCallIds = new Set(),
  preparedPrefix = [],
}: {
  collected: CollectedResponse;
  registry: ToolRegistry;
  responseIndex: number;
  /** Set when the stream broke: the response is what arrived, marked partial. */
  partialReason?: string;
  /** Ids of the turn's earlier calls: an id is unique within the whole turn (it keys idempotency). */
  priorCallIds?: ReadonlySet<string>;
  /** The first calls, already prepared while the response streamed (preparing is the same either way). */
  preparedPrefix?: readonly PreparedCall[];
}): ModelResponse {
  const used = new Set<string>(priorCallIds);
  const calls: PreparedCall[] = collected.calls.map((raw, position) => {
    const call =
      preparedPrefix[position] ?? prepareCall({ registry, raw, position, responseIndex, usedIds: used });
    used.add(call.toolCallId);
    return call;
  });
  return {
    responseIndex,
    message: {
      role: 'assistant',
      content: [
        ...collected.parts.filter((p) => p.type !== 'text' || p.text !== ''),
        ...calls.map((c) => ({
          type: 'tool-call' as const,
          toolCallId: c.toolCallId,
          toolName: c.toolName,
          input: c.input,
        })),
      ],
      ...(partialReason ? { partial: { reason: partialReason } } : {}),
    },
    calls,
    usage: collected.usage,
    finishReason: partialReason ? 'error' : collected.finishReason,
  };
}
