// What was decided about a call that waited for approval, as the journal keeps it: who decided,
// through what and when, the grant that let it run, the arguments an approver edited, the text one
// answered with in the tool's place, or that nobody decided in time. And an output that ran with
// edited arguments, or that an approver wrote, says so.
import { html } from '/vendor/preact-htm.js';
import { shortJson, time } from './format.mjs';

export const throughWhat = {
  api: 'the API',
  cli: 'the CLI',
  dashboard: 'the dashboard',
  chat: 'the chat',
  approver: "the turn's approver",
};

/** `approve`, `reject`, `respond` or `expired`: what the decision was, in one word. */
function kindOf(decision) {
  if (decision.expired) return 'expired';
  if (decision.decision === 'respond') return 'respond';
  return decision.approved ? 'approve' : 'reject';
}

function headline(decision, kind) {
  if (kind === 'expired')
    return `Approval expired: no decision within ${decision.reason ?? 'the approval timeout'}`;
  const verb = { approve: 'Approved', reject: 'Rejected', respond: 'Answered' }[kind];
  const who = decision.by ? ` by ${decision.by}` : '';
  const via = decision.via ? ` via ${throughWhat[decision.via] ?? decision.via}` : '';
  // A grant's approver gave the grant, not this decision: named after it.
  const by =
    decision.grantId === undefined
      ? `${who}${via}`
      : ` by grant ${decision.grantId}${who || via ? ` (${`${who}${via}`.trim()})` : ''}`;
  const how =
    kind === 'respond'
      ? " in the tool's place"
      : decision.input !== undefined
        ? ', with edited arguments'
        : '';
  return `${verb}${by}${how}${decision.reason ? `: ${decision.reason}` : ''}`;
}

/** A `tool.approval_decided` entry, as a line of its call (and what was edited or answered). */
export function Decision({ decision }) {
  const kind = kindOf(decision);
  return html`<div class="decision" data-decision=${kind} data-grant-id=${decision.grantId}>
    <p>${headline(decision, kind)}${decision.at !== undefined && html` <span class="call-id">${time(decision.at)}</span>`}</p>
    ${decision.input !== undefined && html`<pre class="call-args" data-decision-input>${shortJson(decision.input)}</pre>`}
    ${decision.output !== undefined && html`<pre class="call-args" data-decision-output>${decision.output}</pre>`}
  </div>`;
}

/** Within an output: the arguments it ran with when an approver edited them, or who wrote it. */
export function OutputOrigin({ output }) {
  if (output.answeredBy !== undefined)
    return html`<p class="badge" data-answered-by>Not run: ${output.answeredBy} answered in the tool's place</p>`;
  if (output.ranWith === undefined) return null;
  return html`<p class="badge" data-ran-with>Ran with arguments edited by ${output.ranWith.by ?? 'an approver'} (the model's call is kept as it made it):</p>
    <pre data-ran-with-input>${shortJson(output.ranWith.input ?? null)}</pre>`;
}

/** How an output's summary line says where it came from: '' for a tool's own run. */
export const originNote = (output) =>
  output.answeredBy !== undefined
    ? ` — answered by ${output.answeredBy}`
    : output.ranWith !== undefined
      ? ' — ran with edited arguments'
      : '';
