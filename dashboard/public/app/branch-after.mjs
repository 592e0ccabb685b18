// "Branch after this turn" on a conversation's ended turn: a new conversation whose turns come after
// it, reading this conversation's turns up to there by reference (nothing runs again, nothing is
// copied), asking the same model. Asked again in the confirm dialog, then linked once it exists.
// A branch's page says where it came from (its state's `origin`).
import { html, useState } from '/vendor/preact-htm.js';
import { postAction } from './api.mjs';
import { conversationHref } from './links.mjs';

const branchPath = (conversationId) => `/api/conversations/${encodeURIComponent(conversationId)}/branch`;

/** The button on ended turn `afterTurn` of `conversationId`, and its form (an optional new id). */
export function BranchAfter({ conversationId, afterTurn, ask }) {
  const [open, setOpen] = useState(false);
  const [newId, setNewId] = useState('');
  const [problem, setProblem] = useState('');
  const id = `branch-id-${afterTurn}`;
  const submit = (event) => {
    event.preventDefault();
    setProblem('');
    const chosen = newId.trim();
    ask({
      title: `Branch conversation ${conversationId} after turn ${afterTurn}?`,
      detail: html`<p>A new conversation begins whose turns come after turn ${afterTurn}: they read this conversation's ${afterTurn === 1 ? 'turn 1' : `turns 1 to ${afterTurn}`} where they are (nothing of them runs again, nothing is copied) and ask the same model. It has no turn until its first message. This conversation goes on unchanged.</p>
        <p>Its id: ${chosen ? html`<code data-confirm-branch-id>${chosen}</code>` : html`<code>${conversationId}-branch-…</code> (made up)`}</p>`,
      confirm: 'Branch',
      done: (answer) =>
        html`Branched after turn ${answer.afterTurn}: <a href=${conversationHref(answer.conversationId)} data-branch-link=${answer.conversationId}>${answer.conversationId}</a>`,
      run: () =>
        postAction(branchPath(conversationId), { afterTurn, ...(chosen && { conversationId: chosen }) }),
      // Refused (not an ended turn, the id taken, the model not known): said here.
      onRefused: (error) => setProblem(error.message),
    });
  };
  if (!open)
    return html`<button type="button" class="branch" data-branch-after=${afterTurn} onClick=${() => setOpen(true)}>Branch after this turn</button>`;
  return html`<form class="decide-form branch-form" data-branch-form=${afterTurn} onSubmit=${submit}>
    <label for=${id}>New conversation id (optional: one is made up)</label>
    <input id=${id} maxlength="200" value=${newId} placeholder=${`${conversationId}-branch-…`} onInput=${(e) => setNewId(e.currentTarget.value)} />
    ${problem && html`<p class="problem" role="alert" data-branch-problem>${problem}</p>`}
    <div class="buttons">
      <button type="submit" class="primary">Branch after turn ${afterTurn}</button>
      <button type="button" onClick=${() => setOpen(false)}>Close</button>
    </div>
  </form>`;
}

/** On a branch's page: the conversation it came after, and the chain before that. */
export function BranchedFrom({ origin }) {
  const [source, ...earlier] = origin;
  const link = (o) =>
    html`<a class="id" title=${o.conversationId} href=${conversationHref(o.conversationId)}>${o.conversationId}</a>`;
  const point = (o) => (o.turns === 0 ? 'before its first turn' : `after turn ${o.turns}`);
  return html`<p data-branch-of=${source.conversationId} data-branch-after-turn=${source.turns}>
    A branch of ${link(source)} ${point(source)}: its turns read that conversation's turns up to there first.
    ${earlier.length > 0 && html`<span> That one came from ${earlier.map((o, i) => html`${i > 0 && ', then '}${link(o)} ${point(o)}`)}.</span>`}
  </p>`;
}
