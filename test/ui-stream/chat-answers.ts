import type { UIMessage } from 'ai';
import type { NodeChat } from './node-chat';

/** A message's text parts. */
export const texts = (message: UIMessage) =>
  message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));
/** Its tool calls. */
export const tools = (message: UIMessage) => message.parts.filter((p) => p.type === 'dynamic-tool');
/** How its turn ended (the `data-outcome` part), once it has. */
export const outcome = (message: UIMessage) =>
  message.parts.flatMap((p) => (p.type === 'data-outcome' ? [(p.data as { status: string }).status] : []));
/** The messages as a person sees them: roles and parts, without the ids the client made up. */
export const shown = (messages: UIMessage[]) => messages.map(({ role, parts }) => ({ role, parts }));

/**
 * Sends a message whose answer the test model holds at its third word ("hold"), and leaves there,
 * as a page that reloads: the chat stops reading once the held words are shown.
 */
export async function leaveMidAnswer(chat: NodeChat): Promise<void> {
  // (A send resolves once its stream has ended.)
  const sending = chat.sendMessage({ text: 'hold on, then answer' });
  const shownText = () => {
    const last = chat.messages[chat.messages.length - 1];
    return last?.role === 'assistant' ? texts(last).join('') : '';
  };
  while (!shownText().includes('hold')) await new Promise((resolve) => setTimeout(resolve, 10));
  await chat.stop();
  await sending;
}
