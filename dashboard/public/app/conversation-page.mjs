// One conversation (`GET /api/conversations/:id`): its turns in order, what runs and what waits, the
// transcript of its ended turns, and the box that sends it a message. Read again every second while
// a turn runs or a message waits, every few seconds while it is open and idle (a message may come
// from elsewhere), and never again once it is closed with nothing left to run.
import { html, useEffect, useState } from '/vendor/preact-htm.js';
import { getJson } from './api.mjs';
import { BranchAfter, BranchedFrom } from './branch-after.mjs';
import { ConversationQueue } from './conversation-queue.mjs';
import { Transcript } from './conversation-transcript.mjs';
import { TurnLink } from './links.mjs';
import { SendMessage } from './send-message.mjs';
import { ConfirmDialog } from './turn-actions.mjs';

const busyMs = 1_000;
const idleMs = 5_000;

const busy = (state) => Boolean(state.running) || state.next.length > 0 || state.queue.length > 0;

function nextReadIn(state) {
  if (busy(state)) return busyMs;
  return state.closed ? undefined : idleMs;
}

function useConversation(conversationId) {
  const [view, setView] = useState(null);
  const [problem, setProblem] = useState('');
  // Bumped to read again at once (after a send), restarting the timer.
  const [asked, setAsked] = useState(0);
  useEffect(() => {
    let stopped = false;
    let timer;
    const read = async () => {
      let delay = idleMs;
      try {
        const body = await getJson(`/api/conversations/${encodeURIComponent(conversationId)}`);
        if (stopped) return;
        setView(body);
        setProblem('');
        delay = nextReadIn(body.state);
      } catch (error) {
        if (stopped) return;
        setProblem(error.message);
      }
      if (delay !== undefined) timer = setTimeout(read, delay);
    };
    read();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [conversationId, asked]);
  return { view, problem, readAgain: () => setAsked((n) => n + 1) };
}

/** `branch`: what an ended turn offers ("Branch after this turn"), or null when the page may not act. */
function Turns({ turns, firstTurn, branch }) {
  if (turns.length === 0) return html`<p>No turn yet.</p>`;
  return html`${firstTurn > 1 && html`<p data-earlier-turns=${firstTurn - 1}>${firstTurn - 1} earlier turn${firstTurn === 2 ? '' : 's'} not shown (<code>durable-turns show</code> prints them all).</p>`}
  <ol class="conversation-turns" start=${firstTurn}>
    ${turns.map(
      (t) => html`<li data-turn-id=${t.turnId} data-turn-status=${t.status}>
        <${TurnLink} turnId=${t.turnId} /> <span class=${`status status-${t.status}`}>${t.status}</span>
        ${t.problem && html` — <span class="reason">${t.problem}</span>`}
        ${branch && t.status !== 'running' && branch(t.number)}
      </li>`,
    )}
  </ol>`;
}

export function ConversationPage({ conversationId, session }) {
  const { view, problem, readAgain } = useConversation(conversationId);
  const state = view?.state;
  const status = state ? (state.closed ? 'closed' : 'open') : undefined;
  const [asking, setAsking] = useState(null);
  const [notice, setNotice] = useState(null);
  const branch =
    session?.actionsEnabled === false
      ? null
      : (afterTurn) =>
          html`<${BranchAfter} conversationId=${conversationId} afterTurn=${afterTurn} ask=${setAsking} />`;
  return html`
    <p><a href="#/conversations">← Conversations</a></p>
    <h1>Conversation <code>${conversationId}</code></h1>
    ${problem && html`<p class="problem" role="alert">${problem}</p>`}
    ${
      state &&
      html`<section class="summary" aria-label="Summary">
        <p>Status: <strong class=${`status status-${status}`} data-conversation-status=${status}>${status}</strong>${` — ${state.turnCount} turn${state.turnCount === 1 ? '' : 's'}`}</p>
        ${state.origin?.length > 0 && html`<${BranchedFrom} origin=${state.origin} />`}
        ${view.webUiUrl && html`<p><a href=${view.webUiUrl} target="_blank" rel="noreferrer">Open in the Temporal Web UI</a></p>`}
      </section>
      ${
        notice &&
        html`<p class=${notice.ok ? 'notice' : 'problem'} role=${notice.ok ? 'status' : 'alert'} data-action-result=${notice.ok ? 'ok' : notice.status}>
        ${notice.message}${notice.status === 401 ? html` — <a href="/login">log in</a>` : ''}</p>`
      }
      <h2>Turns</h2>
      <${Turns} turns=${view.turns} firstTurn=${view.firstTurn} branch=${branch} />
      <${ConversationQueue} state=${state} />
      <h2>Transcript</h2>
      ${view.transcriptProblem && html`<p class="problem">${view.transcriptProblem}</p>`}
      <${Transcript} messages=${view.transcript} />
      <h2>Send a message</h2>
      ${
        state.closed
          ? html`<p>Closed: it takes no more messages.</p>`
          : session?.actionsEnabled === false
            ? html`<p>Sending is off: the dashboard was started without a token.</p>`
            : html`<${SendMessage} conversationId=${conversationId} running=${Boolean(state.running)} onSent=${readAgain} />`
      }`
    }
    <${ConfirmDialog} request=${asking} onDone=${(outcome) => {
      setAsking(null);
      if (outcome) setNotice(outcome);
    }} />
  `;
}
