import type { AssistantMessage, Message } from '../core';
import { describeFile } from '../core/schema/media';

/** How much of a call's arguments or a result's content the conversation page is sent. */
const glanceChars = 240;

function cut(value: unknown): { text: string; cut: boolean } {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  return text.length > glanceChars
    ? {
        text: `${text.slice(0, glanceChars)}… (${text.length - glanceChars} more characters on the turn's page)`,
        cut: true,
      }
    : { text, cut: false };
}

/**
 * A message as the conversation page shows it (a glance at each call, whole answers): arguments and
 * results cut to a line's worth, files named rather than sent, reasoning left out. The turn's own
 * page has every part whole; this keeps a page read every second small however large the outputs.
 */
export function glanceMessage(message: Message): Message {
  if (message.role === 'system' || typeof message.content === 'string') return message;
  if (message.role === 'user')
    return {
      role: 'user',
      content: message.content.map((part) =>
        part.type === 'file' ? { type: 'text' as const, text: describeFile(part) } : part,
      ),
    };
  if (message.role === 'tool')
    return {
      role: 'tool',
      content: message.content.map((result) => {
        const { text, cut: wasCut } = cut(result.output.content);
        const { files, ...output } = result.output;
        const named = files?.length ? ` ${files.map(describeFile).join(' ')}` : '';
        return {
          ...result,
          output: {
            ...output,
            content: `${text}${named}`,
            ...((wasCut || output.truncated) && { truncated: true }),
          },
        };
      }),
    };
  const content: AssistantMessage['content'] = [];
  for (const part of message.content) {
    if (part.type === 'reasoning') continue;
    if (part.type !== 'tool-call') content.push(part);
    else {
      const { text, cut: wasCut } = cut(part.input);
      content.push({ ...part, input: wasCut ? text : part.input });
    }
  }
  return { ...message, content };
}
