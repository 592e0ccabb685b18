// What happened between a turn's model responses, drawn as rows of the timeline: a user's message
// that joined the running turn (a conversation's steer), the context compacted to fit, a grant
// given ("always allow") or revoked, and an answer the turn's output schema rejected.
import { html } from '/vendor/preact-htm.js';
import { contentText, time } from './format.mjs';
import { coveredText, whoText } from './grants-panel.mjs';

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

function Granted({ entry: { grant } }) {
  return html`<h3>Grant <code>${grant.grantId}</code> given ${whoText(grant)}</h3>
    <p class="note-detail">${coveredText(grant)} run without asking${grant.scope === 'conversation' ? ', for the rest of the conversation' : ''}${grant.at !== undefined ? ` (from ${time(grant.at)})` : ''}.</p>
    ${grant.reason && html`<p class="note-detail">Reason: ${grant.reason}</p>`}`;
}

function Revoked({ entry }) {
  return html`<h3>Grant <code>${entry.grantId}</code> revoked ${whoText(entry)}</h3>
    <p class="note-detail">The calls it covered ask for approval again (from ${time(entry.at)}).</p>`;
}

function OutputRejected({ entry }) {
  return html`<h3>Answer did not match the output schema</h3>
    <p class="problem" data-output-issues>${entry.issues}</p>
    <p class="note-detail">Response ${entry.responseIndex + 1} was not taken as the answer: the model was asked again with this message.</p>
    <div class="input-message" data-role="user"><strong>user</strong><pre>${contentText(entry.message.content)}</pre></div>`;
}

const rows = {
  'user.steered': Steered,
  'context.compaction_requested': CompactionRequested,
  'context.compaction_failed': CompactionFailed,
  'context.compacted': Compacted,
  'approval.granted': Granted,
  'approval.revoked': Revoked,
  'output.rejected': OutputRejected,
};

/** One note of the timeline (see `withEntry`), as a row between the responses. */
export function NoteRow({ note }) {
  const Row = rows[note.entry.type];
  return html`<li class="response note" data-entry-type=${note.entry.type}><${Row} entry=${note.entry} /></li>`;
}
