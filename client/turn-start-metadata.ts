import type { Message } from '../core';

/** The Web UI shows the summary as one line in the list of workflows. */
const summaryChars = 120;

/**
 * The workflow's static summary and details (user metadata, stored once in its start event) so
 * the Temporal Web UI's list reads as turns: the model and the first line of what the turn
 * answers (the last user message of its input), e.g. `gpt-4.1 · What did I plan for Monday?`.
 */
export function turnStartMetadata({
  turnId,
  conversationId,
  model,
  messages,
}: {
  turnId: string;
  conversationId?: string;
  model: string;
  messages: readonly Message[];
}): { staticSummary: string; staticDetails: string } {
  let asked = messages.at(-1);
  for (let i = messages.length - 1; i >= 0; i -= 1)
    if (messages[i]?.role === 'user') {
      asked = messages[i];
      break;
    }
  const text = typeof asked?.content === 'string' ? asked.content : '';
  const newline = text.indexOf('\n');
  const firstLine = (newline === -1 ? text : text.slice(0, newline)).trim();
  const summary = firstLine ? `${model} · ${firstLine}` : model;
  return {
    staticSummary: summary.length > summaryChars ? `${summary.slice(0, summaryChars - 1)}…` : summary,
    staticDetails: [
      `**turn** \`${turnId}\``,
      '',
      `- model: \`${model}\``,
      ...(conversationId ? [`- conversation: \`${conversationId}\``] : []),
      `- input: ${messages.length} message${messages.length === 1 ? '' : 's'}`,
    ].join('\n'),
  };
}
