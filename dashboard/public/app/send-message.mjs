// The box that sends a conversation a message (`POST /api/conversations/:id/messages`), and where
// the message stands then: the turn it started, its place in the queue, the turn it steered.
import { html, useState } from '/vendor/preact-htm.js';
import { postAction } from './api.mjs';
import { TurnLink } from './links.mjs';

const policies = {
  enqueue: 'enqueue: a turn of its own, after those before it',
  steer: 'steer: join the running turn',
  interrupt: 'interrupt: cancel the running turn, run this next',
  reject: 'reject: refuse it while a turn runs',
};

function Receipt({ receipt }) {
  const says = {
    started: () => html`Started turn <${TurnLink} turnId=${receipt.turnId} />.`,
    queued: () => `Queued: ${receipt.ahead} turn${receipt.ahead === 1 ? '' : 's'} ahead of it.`,
    steered: () =>
      html`Steered into turn <${TurnLink} turnId=${receipt.turnId} />: it reads it at its next model request.`,
    dropped: () => 'Dropped: the conversation was closed before it ran.',
  }[receipt.status];
  return html`<p class="notice" role="status" data-receipt=${receipt.status}>${says ? says() : receipt.status}</p>`;
}

/** `running`: a turn runs now, so the policy starts at `steer` (else `enqueue`) until one is picked. */
export function SendMessage({ conversationId, running, onSent }) {
  const [text, setText] = useState('');
  const [picked, setPicked] = useState('');
  // One id per typed message: sending it again after no answer is the same message, taken once.
  const [messageId, setMessageId] = useState(() => crypto.randomUUID());
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState(null);
  const policy = picked || (running ? 'steer' : 'enqueue');
  const fresh = () => {
    setMessageId(crypto.randomUUID());
    setTried(false);
  };
  const send = async (event) => {
    event.preventDefault();
    setBusy(true);
    setTried(true);
    try {
      const path = `/api/conversations/${encodeURIComponent(conversationId)}/messages`;
      setOutcome({ receipt: await postAction(path, { text, policy, messageId }) });
      setText('');
      fresh();
    } catch (error) {
      setOutcome({ error });
      // An answer (a 4xx) settled the message, refused or not: what is sent next is a new one.
      // Without one (a 5xx, no connection) it may be recorded: a retry keeps its id.
      if (error.status !== undefined && error.status < 500) fresh();
    } finally {
      setBusy(false);
      onSent();
    }
  };
  const edit = (event) => {
    setText(event.currentTarget.value);
    // Other words are another message, even after a try that had no answer.
    if (tried) fresh();
  };
  return html`<form class="send-message" onSubmit=${send}>
    <label for="message-text">Message</label>
    <textarea id="message-text" rows="3" maxlength="8000" required value=${text} onInput=${edit}></textarea>
    <label for="message-policy">While a turn runs</label>
    <select id="message-policy" value=${policy} onChange=${(event) => setPicked(event.currentTarget.value)}>
      ${Object.entries(policies).map(([value, label]) => html`<option value=${value}>${label}</option>`)}
    </select>
    <div class="buttons"><button type="submit" class="primary" disabled=${busy || !text.trim()}>Send</button></div>
    ${outcome?.receipt && html`<${Receipt} receipt=${outcome.receipt} />`}
    ${
      outcome?.error &&
      html`<p class="problem" role="alert" data-send-result=${outcome.error.status ?? 'no-answer'}>${outcome.error.message}${
        outcome.error.status === 401 ? html` — <a href="/login">log in</a>` : ''
      }</p>`
    }
  </form>`;
}
