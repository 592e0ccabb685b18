// A conversation's transcript as a person reads it: what the user said and what the model answered,
// each tool call and its result in a line.
import { html } from '/vendor/preact-htm.js';
import { contentText } from './format.mjs';

/** A value's JSON cut to one short line: a call's arguments and a result are glanced at here, not read. */
function brief(value, max = 120) {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function Parts({ message }) {
  if (message.role === 'user' || message.role === 'system')
    return html`<pre>${contentText(message.content)}</pre>`;
  if (message.role === 'tool')
    return message.content.map(
      (r) =>
        html`<p class="tool-line" data-tool-result=${r.toolCallId}>← <code>${r.toolName}</code> ${r.output.status}: ${brief(r.output.content)}</p>`,
    );
  // The model's reasoning is left out: its answer and its calls say what it did.
  return message.content.map((part) =>
    part.type === 'text'
      ? html`<pre>${part.text}</pre>`
      : part.type === 'tool-call'
        ? html`<p class="tool-line" data-tool-call=${part.toolCallId}>→ <code>${part.toolName}</code> ${brief(part.input)}</p>`
        : null,
  );
}

export function Transcript({ messages }) {
  if (messages.length === 0) return html`<p>No turn has ended yet.</p>`;
  return html`<ol class="transcript">
    ${messages.map(
      (message) => html`<li class="transcript-message" data-role=${message.role}>
        <strong>${message.role}</strong><${Parts} message=${message} />
      </li>`,
    )}
  </ol>`;
}
