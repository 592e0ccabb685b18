// What happened between a turn's model responses, drawn as rows of the timeline: a user's message
// that joined the running turn (a conversation's steer), and the context compacted to fit.
import { html } from '/vendor/preact-htm.js';
import { contentText, time } from './format.mjs';

const compactionWhy = {
  budget: 'The context reached the size it is kept under',
  overflow: 'The provider refused a request as too long',
};

function Steered({ entry }) {
  return html`<h3>User message${entry.messages.length === 1 ? '' : 's'} joined the turn</h3>
    <p class="note-detail">The model reads ${entry.messages.length === 1 ? 'it' : 'them'} in its next request.</p>
    ${entry.messages.map(
      ({ messageId, message }) =>
        html`<div class="input-message" data-role="user" data-message-id=${messageId}>
          <strong>user</strong> <span class="call-id">${messageId}</span><pre>${contentText(message.content)}</pre>
        </div>`,
    )}`;
}

function CompactionRequested({ entry }) {
  return html`<h3>Context to be compacted</h3>
    <p class="note-detail">${compactionWhy[entry.reason] ?? entry.reason} (${entry.reason}): the model is asked for a summary of what came before.</p>`;
}

function CompactionFailed({ entry }) {
  const next = entry.retryAt === undefined ? 'Given up.' : `Asked again at ${time(entry.retryAt)}.`;
  return html`<h3>Compaction attempt ${entry.attempt} failed</h3>
    <p class="problem">${entry.error}</p><p class="note-detail">${next}</p>`;
}

function Compacted({ entry }) {
  return html`<h3>Context compacted</h3>
    <p class="note-detail">Later requests send this summary in place of what it covers (${entry.usage.inputTokens} tokens in, ${entry.usage.outputTokens} out).</p>
    <details class="output"><summary>Summary (${entry.summary.length} characters)</summary><pre>${entry.summary}</pre></details>`;
}

const rows = {
  'user.steered': Steered,
  'context.compaction_requested': CompactionRequested,
  'context.compaction_failed': CompactionFailed,
  'context.compacted': Compacted,
};

/** One note of the timeline (see `withEntry`), as a row between the responses. */
export function NoteRow({ note }) {
  const Row = rows[note.entry.type];
  return html`<li class="response note" data-entry-type=${note.entry.type}><${Row} entry=${note.entry} /></li>`;
}
