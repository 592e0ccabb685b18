// The grants in force on a running turn ("always allow": the calls they cover run without asking),
// each with what it covers, who gave it, through what and when, and a Revoke button asked again in
// the confirm dialog. The same words serve the timeline's rows for a grant given or revoked.
import { html } from '/vendor/preact-htm.js';
import { postAction } from './api.mjs';
import { throughWhat } from './call-decision.mjs';
import { time } from './format.mjs';

/** `target = "staging"`, `target ~ /^prod-/`: one condition on a call's arguments. */
const matcherText = (m) =>
  m.pattern !== undefined ? `${m.path} ~ /${m.pattern}/` : `${m.path} = ${JSON.stringify(m.equals)}`;

/** What a grant lets run without asking: `deploy calls where target = "staging"`, `every deploy call`. */
export function coveredText(grant) {
  const match = grant.match ?? [];
  if (match.length === 0) return `every ${grant.toolName} call`;
  return `${grant.toolName} calls where ${match.map(matcherText).join(' and ')}`;
}

/** `by alice via the CLI`: who did it and through what, as far as the journal says. */
export function whoText({ by, via }) {
  return [by && `by ${by}`, via && `via ${throughWhat[via] ?? via}`].filter(Boolean).join(' ');
}

const revokePath = (turnId, grantId) =>
  `/api/turns/${encodeURIComponent(turnId)}/grants/${encodeURIComponent(grantId)}/revoke`;

function GrantRow({ turnId, grant, ask }) {
  const revoke = () =>
    ask({
      title: `Revoke grant ${grant.grantId}?`,
      detail: `The calls it covers (${coveredText(grant)}) ask for approval again from now on; those it let run stay approved.`,
      confirm: 'Revoke',
      danger: true,
      done: `grant ${grant.grantId} revoked`,
      run: () => postAction(revokePath(turnId, grant.grantId)),
    });
  const origin = [whoText(grant), grant.at !== undefined && time(grant.at)].filter(Boolean).join(', ');
  return html`<li data-grant-id=${grant.grantId}>
    <code>${grant.grantId}</code>: ${coveredText(grant)} run without asking${grant.scope === 'conversation' ? ' (for the conversation)' : ''}${' '}
    ${origin && html`<span class="call-id">— ${origin}</span>`}${' '}
    ${ask && html`<button type="button" class="danger" onClick=${revoke}>Revoke</button>`}
    ${grant.reason && html`<p class="note-detail">Reason: ${grant.reason}</p>`}
  </li>`;
}

/** The panel, shown while the turn runs and has grants; `ask` is null when actions are off. */
export function GrantsPanel({ turnId, grants, ask }) {
  if (!grants?.length) return null;
  return html`<section class="grants" aria-labelledby="grants-title" data-grants>
    <h2 id="grants-title">Grants</h2>
    <p class="hint">Calls these cover run without asking, each recorded as approved by its grant.</p>
    <ul>${grants.map((grant) => html`<${GrantRow} turnId=${turnId} grant=${grant} ask=${ask} />`)}</ul>
  </section>`;
}
