// The calls a turn's sub-agents (`agentTool`: each a turn of its own, at any depth) wait on for a
// person, as the turn's state lists them (`subAgentApprovals`), drawn under the turn's own call that
// runs the sub-agent: each labelled with the sub-agent's turn (a link to its page), and decided here
// with the same forms as the turn's own waiting calls. A decision is sent to this turn, naming the
// call that runs the sub-agent: the server's client sends it on, down the sub-agents its own calls run
// (never to a turn id a report names), and refuses it if the call there is not what this page showed.
// The entry goes once the turn's next state no longer lists it.
import { html } from '/vendor/preact-htm.js';
import { shortJson } from './format.mjs';
import { TurnLink } from './links.mjs';
import { DecideCall } from './turn-actions.mjs';

/** The sub-agents' waiting calls under the turn's call `agentCallId`. */
export const subAgentWaitsOf = (state, agentCallId) =>
  (state?.subAgentApprovals ?? []).filter((a) => a.agentCallId === agentCallId);

/** A waiting call as the decide forms read one (`approval` carries its reason). */
const callOf = (approval) => ({
  toolCallId: approval.toolCallId,
  agentCallId: approval.agentCallId,
  toolName: approval.toolName,
  input: approval.input,
  approval,
});

/** `ask`: the page's confirm dialog, or null when the page may not act (then the arguments alone). */
export function SubAgentWaits({ turnId, approvals, ask }) {
  if (approvals.length === 0) return null;
  return html`<ul class="sub-agent-waits" aria-label="Calls of its sub-agents waiting for approval">
    ${approvals.map(
      (a) => html`<li key=${`${a.turnId} ${a.toolCallId}`} class="sub-agent-wait"
        data-sub-agent-turn=${a.turnId} data-sub-agent-call=${a.toolCallId}>
        <div class="call-head">
          <span class="badge outcome-waiting">waiting for approval</span>
          in sub-agent <${TurnLink} turnId=${a.turnId} />
          <code>${a.toolName}</code> <span class="call-id">${a.toolCallId}</span>
        </div>
        ${
          ask
            ? html`<${DecideCall} turnId=${turnId} call=${callOf(a)} ask=${ask} fieldId=${`${a.turnId}-${a.toolCallId}`} />`
            : html`<pre class="call-args" data-call-args>${shortJson(a.input ?? null)}</pre>`
        }
      </li>`,
    )}
  </ul>`;
}
