import {
  buildModelResponse,
  continuationOf,
  type Message,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
  type PreparedCall,
  prepareCall,
  type ToolRegistry,
  type TurnModel,
  type TurnObserver,
} from '../core';
import { streamResponse } from './stream-response';
import { toolSpecs } from './tool-specs';

/**
 * One model request as both hosts make it: stream the response, prepare each tool call the moment
 * its arguments are complete (ids unique across the turn, arguments checked) and hand it to
 * `onCall`, then build the response from what arrived — partial, with the reason, when the stream
 * broke after calls. What differs between hosts is only how a call reaches the engine while the
 * stream is open, and so how many of the prepared calls it had taken when the stream ended
 * (`handedOver`: on Temporal an Update may still be in flight then; in process every one is).
 */
export async function streamModelResponse({
  model,
  registry,
  observers,
  turnId,
  responseIndex,
  messages: recorded,
  readFiles,
  idempotencyKey,
  continuation,
  output,
  signal,
  priorCallIds,
  maxArgumentBytes,
  onPart,
  onCall,
  handedOver,
}: {
  model: TurnModel;
  registry: ToolRegistry;
  observers: readonly TurnObserver[];
  turnId: string;
  responseIndex: number;
  messages: Message[];
  /** Reads the bytes of files kept in the blob store into the messages (the provider needs them). */
  readFiles?: (messages: readonly Message[]) => Promise<Message[]>;
  idempotencyKey: string;
  continuation: { previousResponseId: string; fromMessage: number } | undefined;
  /** The turn asks for a structured answer (see `ModelRequest.output`). */
  output?: ModelRequest['output'] | undefined;
  signal: AbortSignal;
  /** Ids of the turn's earlier calls: a call id is unique within the whole turn. */
  priorCallIds: ReadonlySet<string>;
  maxArgumentBytes?: number | undefined;
  /** Every part as it arrives, before a finished call is prepared. */
  onPart?: (part: ModelStreamPart) => void;
  onCall: (call: PreparedCall) => void | Promise<void>;
  /** Once the stream ended: how many of the prepared calls (the first ones) the engine took while it streamed. */
  handedOver: (prepared: readonly PreparedCall[]) => number | Promise<number>;
}): Promise<ModelResponse> {
  const messages = readFiles ? await readFiles(recorded) : recorded;
  const usedIds = new Set(priorCallIds);
  const prepared: PreparedCall[] = [];
  const request: ModelRequest = {
    turnId,
    responseIndex,
    messages,
    tools: toolSpecs(registry),
    idempotencyKey,
    signal,
    ...continuationOf(messages, continuation),
    ...(output ? { output } : {}),
  };
  const { collected, broken } = await streamResponse({
    model,
    request,
    observers,
    onPart: async (part) => {
      onPart?.(part);
      if (part.type !== 'tool-call') return;
      const call = prepareCall({
        registry,
        raw: part,
        position: prepared.length,
        responseIndex,
        usedIds,
        ...(maxArgumentBytes !== undefined ? { maxArgumentBytes } : {}),
      });
      usedIds.add(call.toolCallId);
      prepared.push(call);
      await onCall(call);
    },
  });
  return buildModelResponse({
    collected,
    registry,
    responseIndex,
    priorCallIds,
    prepared,
    streamedCallCount: await handedOver(prepared),
    ...(maxArgumentBytes !== undefined ? { maxArgumentBytes } : {}),
    ...(broken ? { partialReason: `the response stream broke: ${broken.message}` } : {}),
  });
}
