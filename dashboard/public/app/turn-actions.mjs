// Actions on a turn — approve or reject a waiting call (with a reason), cancel the turn — each
// asked again in a modal dialog before it is sent. What it did shows up through the event stream.
import { html, useEffect, useRef, useState } from '/vendor/preact-htm.js';
import { postAction } from './api.mjs';
import { shortJson } from './format.mjs';

/** A modal "are you sure": `request` is `{ title, detail, confirm, run }`, or null when closed. */
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
      await request.run();
      onDone({ ok: true, message: request.done, whileRunning: request.whileRunning === true });
    } catch (error) {
      onDone({ ok: false, message: error.message, status: error.status });
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

const callPath = (turnId, callId, verb) =>
  `/api/turns/${encodeURIComponent(turnId)}/calls/${encodeURIComponent(callId)}/${verb}`;

/** Approve / reject buttons and a reason field for one waiting call. */
export function DecideCall({ turnId, call, ask }) {
  const [reason, setReason] = useState('');
  const id = `reason-${call.toolCallId}`;
  const args = shortJson(call.input ?? null);
  const decide = (verb) =>
    ask({
      title: `${verb === 'approve' ? 'Approve' : 'Reject'} ${call.toolName} (${call.toolCallId})?`,
      detail: html`<span>It runs with:</span><pre class="call-args" data-confirm-args>${args}</pre>${
        reason ? `Reason: ${reason}` : 'No reason given.'
      }`,
      confirm: verb === 'approve' ? 'Approve' : 'Reject',
      // Approving lets the call run as asked; rejecting and cancelling stop work: those are red.
      danger: verb !== 'approve',
      done: `${call.toolCallId} ${verb === 'approve' ? 'approved' : 'rejected'}`,
      run: () => postAction(callPath(turnId, call.toolCallId, verb), reason ? { reason } : {}),
    });
  return html`<div class="decide">
    ${call.approval?.reason && html`<p>Asks approval: ${call.approval.reason}</p>`}
    <p>It runs with:</p>
    <pre class="call-args" data-call-args>${args}</pre>
    <label for=${id}>Reason (kept in the journal; a rejected call's model reads it)</label>
    <input id=${id} maxlength="2000" value=${reason} onInput=${(e) => setReason(e.currentTarget.value)} />
    <div class="buttons">
      <button type="button" class="primary" onClick=${() => decide('approve')}>Approve</button>
      <button type="button" class="danger" onClick=${() => decide('reject')}>Reject</button>
    </div>
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
