import type { AssistantMessage, ReasoningPart, TextPart } from '../schema/messages';
import type { Usage } from '../schema/usage';
import { zeroUsage } from '../schema/usage';
import type { RawToolCall } from '../tools/prepare-call';
import type { ModelStreamPart } from './turn-model';

export interface CollectedResponse {
  /** The assistant message as streamed; tool-call parts carry the ids and arguments as sent. */
  parts: AssistantMessage['content'];
  calls: RawToolCall[];
  usage: Usage;
  finishReason: string;
  /** False when the stream ended without a finish part. */
  complete: boolean;
  /** The provider's id for the response, when it gave one. */
  responseId?: string;
}

/** Parts that open or close a text or reasoning block: they carry no content of their own. */
export function isBlockBoundary(part: ModelStreamPart): boolean {
  return (
    part.type === 'text-start' ||
    part.type === 'text-end' ||
    part.type === 'reasoning-start' ||
    part.type === 'reasoning-end'
  );
}

/**
 * Folds stream parts into a response. Each text or reasoning block the provider delimited (with an
 * id) is a part of its own, with the provider metadata last attached to it (as the AI SDK keeps
 * it); deltas without an id join the part before them when it is of their kind. Tool calls keep
 * their stream order, which is the batch order.
 */
export class ResponseCollector {
  private readonly response: CollectedResponse = {
    parts: [],
    calls: [],
    usage: zeroUsage,
    finishReason: 'unknown',
    complete: false,
  };
  /** Open blocks by kind and id (ids are the provider's, unique only while a block is open). */
  private readonly open = new Map<string, TextPart | ReasoningPart>();

  add(part: ModelStreamPart): void {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start': {
        const type = part.type === 'text-start' ? 'text' : 'reasoning';
        const block: TextPart | ReasoningPart = { type, text: '' };
        if (part.providerMetadata) block.providerMetadata = part.providerMetadata;
        this.response.parts.push(block);
        this.open.set(`${type}:${part.id}`, block);
        return;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const type = part.type === 'text-delta' ? 'text' : 'reasoning';
        const block = this.blockFor(type, part.id);
        block.text += part.delta;
        if (part.providerMetadata) block.providerMetadata = part.providerMetadata;
        return;
      }
      case 'text-end':
      case 'reasoning-end': {
        const key = `${part.type === 'text-end' ? 'text' : 'reasoning'}:${part.id}`;
        const block = this.open.get(key);
        if (block && part.providerMetadata) block.providerMetadata = part.providerMetadata;
        this.open.delete(key);
        return;
      }
      case 'tool-call': {
        const call: RawToolCall = { toolCallId: part.toolCallId, toolName: part.toolName, input: part.input };
        if (part.providerMetadata) call.providerMetadata = part.providerMetadata;
        this.response.calls.push(call);
        return;
      }
      case 'tool-call-metadata': {
        const call = this.response.calls.find((c) => c.toolCallId === part.toolCallId);
        if (call) call.providerMetadata = part.providerMetadata;
        return;
      }
      case 'response-id':
        this.response.responseId = part.id;
        return;
      case 'finish':
        this.response.usage = part.usage;
        this.response.finishReason = part.finishReason;
        this.response.complete = true;
        return;
    }
  }

  result(): CollectedResponse {
    return this.response;
  }

  /** The part a delta belongs to: its open block; without an id, the last part when it is of its kind. */
  private blockFor(type: 'text' | 'reasoning', id: string | undefined): TextPart | ReasoningPart {
    if (id !== undefined) {
      const block = this.open.get(`${type}:${id}`);
      if (block) return block;
    }
    const parts = this.response.parts;
    const last = parts[parts.length - 1];
    if (id === undefined && last && last.type === type) return last;
    const block: TextPart | ReasoningPart = { type, text: '' };
    parts.push(block);
    if (id !== undefined) this.open.set(`${type}:${id}`, block);
    return block;
  }
}
