// Actions on a turn — approve (always, too: approve-always.mjs) or reject a waiting call (with a
// reason), approve it with edited arguments or answer in its place (decide-forms.mjs), cancel the
// turn — each asked again in a modal dialog before it is sent. What it did shows up through the
// event stream.
import { html, useEffect, useRef, useState } from '/vendor/preact-htm.js';
import { callActionPath, postAction } from './api.mjs';
import { AlwaysAllow, alwaysLine, alwaysOff, rememberOf } from './approve-always.mjs';
import { EditArguments, RespondInstead } from './decide-forms.mjs';
import { shortJson } from './format.mjs';

/**
 * A modal "are you sure": `request` is `{ title, detail, confirm, run, done, onRefused? }`, or null
 * when closed; `done` is what to say once it worked, or a function of the answer saying it. With
 * `onRefused`, a refusal (400, 409) goes to it, to be shown where the request was made.
 */
export function ConfirmDialog({ request, onDone }) {
  const dialog = useRef(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (request && !dialog.current.open) dialog.current.showModal();
    if (!request && dialog.current.open) dialog.current.close();
  }, [request]);
  const confirm = async (event) => {
    event.preventDefault();
    setBusy(true);
    try {
      const answer = await request.run();
      // `done` may say what the answer made (a fork links to its new turn).
      const message = typeof request.done === 'function' ? request.done(answer) : request.done;
      onDone({ ok: true, message, whileRunning: request.whileRunning === true });
    } catch (error) {
      if (request.onRefused && (error.status === 400 || error.status === 409)) {
        request.onRefused(error);
        onDone(null);
      } else onDone({ ok: false, message: error.message, status: error.status });
    } finally {
      setBusy(false);
    }
  };
  return html`<dialog ref=${dialog} class="confirm" aria-labelledby="confirm-title" onCancel=${() => onDone(null)}>
    <form method="dialog" onSubmit=${confirm}>
      <h2 id="confirm-title">${request?.title}</h2>
      <div class="detail">${request?.detail}</div>
      <div class="buttons">
        <button type="button" onClick=${() => onDone(null)} disabled=${busy}>Go back</button>
        <button type="submit" class=${request?.danger ? 'danger' : 'primary'} disabled=${busy}>${request?.confirm}</button>
      </div>
    </form>
  </dialog>`;
}

/**
 * Approve (always, too) / reject buttons and a reason field for one waiting call; edit or respond
 * open a form. `fieldId` keeps its fields' ids apart from another turn's call of the same id (a
 * sub-agent's, shown on its parent's page).
 */
export function DecideCall({ turnId, call, ask, fieldId = call.toolCallId }) {
  const [reason, setReason] = useState('');
  const [always, setAlways] = useState(alwaysOff);
  const [problem, setProblem] = useState('');
  // Which form is open below the buttons: 'edit', 'respond', or none.
  const [form, setForm] = useState(null);
  const toggle = (name) => setForm((open) => (open === name ? null : name));
  const id = `reason-${fieldId}`;
  const args = shortJson(call.input ?? null);
  const decide = (verb) => {
    const remember = verb === 'approve' ? rememberOf(always) : undefined;
    setProblem(remember?.problem ?? '');
    if (remember?.problem) return;
    ask({
      title: `${verb === 'approve' ? 'Approve' : 'Reject'} ${call.toolName} (${call.toolCallId})?`,
      detail: html`<span>It runs with:</span><pre class="call-args" data-confirm-args>${args}</pre>${
        reason ? `Reason: ${reason}` : 'No reason given.'
      }${remember && html`<p data-confirm-always>${alwaysLine(call, remember)}</p>`}`,
      confirm: verb === 'approve' ? 'Approve' : 'Reject',
      // Approving lets the call run as asked; rejecting and cancelling stop work: those are red.
      danger: verb !== 'approve',
      done: `${call.toolCallId} ${verb === 'approve' ? 'approved' : 'rejected'}${remember ? ", and its tool's later calls allowed" : ''}`,
      run: () =>
        postAction(callActionPath(turnId, call, verb), {
          ...(reason && { reason }),
          ...(remember && { remember }),
        }),
    });
  };
  return html`<div class="decide">
    ${call.approval?.reason && html`<p>Asks approval: ${call.approval.reason}</p>`}
    <p>It runs with:</p>
    <pre class="call-args" data-call-args>${args}</pre>
    <label for=${id}>Reason (kept in the journal; a rejected call's model reads it)</label>
    <input id=${id} maxlength="2000" value=${reason} onInput=${(e) => setReason(e.currentTarget.value)} />
    <${AlwaysAllow} call=${call} always=${always} onChange=${setAlways} />
    ${problem && html`<p class="problem" role="alert" data-always-problem>${problem}</p>`}
    <div class="buttons">
      <button type="button" class="primary" onClick=${() => decide('approve')}>Approve</button>
      <button type="button" class="danger" onClick=${() => decide('reject')}>Reject</button>
      <button type="button" aria-expanded=${form === 'edit'} onClick=${() => toggle('edit')}>Edit arguments</button>
      <button type="button" aria-expanded=${form === 'respond'} onClick=${() => toggle('respond')}>Respond</button>
    </div>
    ${form === 'edit' && html`<${EditArguments} turnId=${turnId} call=${call} reason=${reason} ask=${ask} fieldId=${fieldId} />`}
    ${form === 'respond' && html`<${RespondInstead} turnId=${turnId} call=${call} reason=${reason} ask=${ask} fieldId=${fieldId} />`}
  </div>`;
}

export function CancelTurn({ turnId, ask }) {
  return html`<button
    type="button"
    class="danger"
    onClick=${() =>
      ask({
        title: `Cancel turn ${turnId}?`,
        detail: 'Running calls are interrupted and the turn ends cancelled. This cannot be undone.',
        confirm: 'Cancel the turn',
        danger: true,
        done: 'cancel requested',
        // Said while the turn runs on; its status says the rest once it has ended.
        whileRunning: true,
        run: () => postAction(`/api/turns/${encodeURIComponent(turnId)}/cancel`),
      })}
  >Cancel turn</button>`;
}
