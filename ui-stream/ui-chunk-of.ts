import type { FinishReason } from 'ai';
import type { AssistantMessage, LiveChannelName, TurnStatus } from '../core';
import type { Chunk } from './ui-chunk';

export function startOf(channel: LiveChannelName, id: string): Chunk {
  return channel === 'text' ? { type: 'text-start', id } : { type: 'reasoning-start', id };
}

export function deltaOf(channel: LiveChannelName, id: string, delta: string): Chunk {
  return channel === 'text' ? { type: 'text-delta', id, delta } : { type: 'reasoning-delta', id, delta };
}

export function endOf(channel: LiveChannelName, id: string): Chunk {
  return channel === 'text' ? { type: 'text-end', id } : { type: 'reasoning-end', id };
}

/** The channel's whole text in a recorded response: its text parts, or its reasoning parts, joined. */
export function channelText(message: AssistantMessage, channel: LiveChannelName): string {
  const content = message.content;
  if (typeof content === 'string') return channel === 'text' ? content : '';
  return content.map((part) => (part.type === channel && 'text' in part ? part.text : '')).join('');
}

export function userText(content: string | readonly { type: string; text?: string }[]): string[] {
  if (typeof content === 'string') return [content];
  return content.flatMap((part) =>
    part.type === 'text' && typeof part.text === 'string' ? [part.text] : [],
  );
}

export function finishReasonOf(status: TurnStatus): FinishReason {
  switch (status) {
    case 'completed':
      return 'stop';
    case 'cancelled':
      return 'interrupted';
    case 'failed':
      return 'error';
    case 'budget_exhausted':
      return 'length';
    default:
      return 'other';
  }
}
