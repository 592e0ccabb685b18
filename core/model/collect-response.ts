import type { AssistantMessage } from '../schema/messages';
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

/**
 * Folds stream parts into a response. Consecutive text (and reasoning) deltas merge into one
 * part; tool calls keep their stream order, which is the batch order.
 */
export class ResponseCollector {
  private readonly response: CollectedResponse = {
    parts: [],
    calls: [],
    usage: zeroUsage,
    finishReason: 'unknown',
    complete: false,
  };

  add(part: ModelStreamPart): void {
    const parts = this.response.parts;
    const last = parts[parts.length - 1];
    switch (part.type) {
      case 'text-delta':
      case 'reasoning-delta': {
        const type = part.type === 'text-delta' ? 'text' : 'reasoning';
        if (last && last.type === type) last.text += part.delta;
        else parts.push({ type, text: part.delta });
        return;
      }
      case 'tool-call':
        this.response.calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
        return;
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
}
