// "Fork from here" on a finished turn's timeline: after a response, or before a call. A new turn
// starts with this turn's record up to that point (nothing of it runs again) and, if given, the
// user's next message; asked again in the confirm dialog, then linked once it started.
import { html, useState } from '/vendor/preact-htm.js';
import { postAction } from './api.mjs';
import { TurnLink, turnHref } from './links.mjs';

const forkPath = (turnId) => `/api/turns/${encodeURIComponent(turnId)}/fork`;

/** Where a fork point is, as the timeline numbers responses (from 1). */
const pointText = (at) =>
  'afterResponse' in at ? `after response ${at.afterResponse + 1}` : `before call ${at.beforeCall}`;

/** `at`: `{ afterResponse: index }` or `{ beforeCall: id }`, as the API takes it. */
export function ForkFrom({ turnId, at, ask }) {
  const [open, setOpen] = useState(false);
  const [message, setMessage] = useState('');
  const [problem, setProblem] = useState('');
  const point = pointText(at);
  const id = `fork-${'afterResponse' in at ? `r${at.afterResponse}` : `c-${at.beforeCall}`}`;
  const submit = (event) => {
    event.preventDefault();
    setProblem('');
    ask({
      title: `Fork turn ${turnId} ${point}?`,
      detail: html`<p>A new turn starts with this turn's record up to here: nothing of it runs again, no request is repeated. It asks the same model, with the default budget and settings.</p>${
        message.trim()
          ? html`<span>The model then reads:</span><pre class="call-args" data-confirm-message>${message}</pre>`
          : 'No message: the model goes on from the record.'
      }`,
      confirm: 'Fork',
      done: (answer) => {
        setOpen(false);
        return html`Forked ${point}: <a href=${turnHref(answer.turnId)} data-fork-link>${answer.turnId}</a>`;
      },
      run: () => postAction(forkPath(turnId), { at, ...(message.trim() && { message }) }),
      // The fork refused the point (a call without its output, background calls): said here.
      onRefused: (error) => setProblem(error.message),
    });
  };
  if (!open)
    return html`<button type="button" class="fork" data-fork=${point} onClick=${() => setOpen(true)}>Fork from here: ${point}</button>`;
  return html`<form class="decide-form fork-form" data-fork-form=${point} onSubmit=${submit}>
    <label for=${id}>Your next message (optional): the fork's model reads it after the record</label>
    <textarea id=${id} rows="3" maxlength="8000" value=${message} onInput=${(e) => setMessage(e.currentTarget.value)}></textarea>
    ${problem && html`<p class="problem" role="alert" data-fork-problem>${problem}</p>`}
    <div class="buttons">
      <button type="submit" class="primary">Fork ${point}</button>
      <button type="button" onClick=${() => setOpen(false)}>Close</button>
    </div>
  </form>`;
}

/** On a fork's page: the turn it began from, and where. */
export function ForkedFrom({ forked }) {
  return html`<p data-forked-from=${forked.from}>Forked from turn <${TurnLink} turnId=${forked.from} /> ${pointText(forked.point)}: its record up to there is this turn's own.</p>`;
}
