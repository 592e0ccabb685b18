// What a conversation is doing: the turn that runs (with the messages steered into it) and the
// messages that wait for the turns after it.
import { html } from '/vendor/preact-htm.js';
import { contentText } from './format.mjs';
import { TurnLink } from './links.mjs';

function Waiting({ messages, kind }) {
  return html`<ol class="waiting" data-waiting=${kind}>
    ${messages.map(
      ({ messageId, message }) =>
        html`<li data-message-id=${messageId}><span class="call-id">${messageId}</span><pre>${contentText(message.content)}</pre></li>`,
    )}
  </ol>`;
}

export function ConversationQueue({ state }) {
  const { running, next, queue } = state;
  return html`<section aria-label="Running and waiting">
    ${
      running
        ? html`<p data-running=${running.turnId}>Running now: <${TurnLink} turnId=${running.turnId} />${
            running.cancelling ? html` <span class="badge">cancelling</span>` : ''
          }</p>`
        : html`<p data-running="">No turn runs now.</p>`
    }
    ${
      running?.steers.length > 0 &&
      html`<p>Steered into it (read at its next model request, or by the next turn if it had none left):</p><${Waiting} messages=${running.steers} kind="steers" />`
    }
    ${next.length > 0 && html`<p>To start the next turn together:</p><${Waiting} messages=${next} kind="next" />`}
    ${queue.length > 0 && html`<p>Queued, a turn each, in order:</p><${Waiting} messages=${queue} kind="queue" />`}
  </section>`;
}
