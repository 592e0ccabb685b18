// One turn: its status, usage and budget, its timeline kept live from the event stream
// (`GET /api/turns/:id/events`), the grants in force, its actions, and a link to it in the
// Temporal Web UI.
import { html, useEffect, useState } from '/vendor/preact-htm.js';
import { getJson } from './api.mjs';
import { ForkedFrom, ForkFrom } from './fork-from.mjs';
import { contentText, duration, shortJson, time } from './format.mjs';
import { GrantsPanel } from './grants-panel.mjs';
import { SubAgentWaits, subAgentWaitsOf } from './sub-agent-waits.mjs';
import { TimelineView } from './timeline-view.mjs';
import { CancelTurn, ConfirmDialog, DecideCall } from './turn-actions.mjs';
import { emptyTimeline, withEntry, withLive, withState } from './turn-timeline.mjs';

const turnPath = (turnId) => `/api/turns/${encodeURIComponent(turnId)}`;

function useTurnStream(turnId) {
  const [timeline, setTimeline] = useState(emptyTimeline);
  const [turn, setTurn] = useState(null);
  const [problem, setProblem] = useState('');
  const [ended, setEnded] = useState(false);
  useEffect(() => {
    const reload = () => getJson(turnPath(turnId)).then(setTurn, (error) => setProblem(error.message));
    reload();
    const events = new EventSource(`${turnPath(turnId)}/events`);
    events.addEventListener('entry', (e) => {
      const { entry, waves } = JSON.parse(e.data);
      setTimeline((t) => withEntry(t, entry, waves));
    });
    events.addEventListener('live', (e) => setTimeline((t) => withLive(t, JSON.parse(e.data))));
    events.addEventListener('state', (e) => setTimeline((t) => withState(t, JSON.parse(e.data))));
    events.addEventListener('end', () => {
      events.close();
      setEnded(true);
      reload();
    });
    // The server's own `error` event has data; the browser's (connection lost) has none and retries.
    events.addEventListener('error', (e) => {
      if (e.data) setProblem(JSON.parse(e.data).error ?? 'the live feed failed');
    });
    return () => events.close();
  }, [turnId]);
  return { timeline, turn, problem, ended };
}

function useNow(running) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [running]);
  return now;
}

const budgetNames = { modelResponses: 'model responses', toolCalls: 'tool calls', tokens: 'tokens' };
const budgetPart = ([name, left]) =>
  name === 'wallTimeMs' ? `${duration(left)} of wall time` : `${left} ${budgetNames[name] ?? name}`;

function Usage({ usage, state }) {
  if (!usage) return null;
  const left = state?.budgetLeft ?? {};
  return html`<dl class="facts">
    <dt>Tokens</dt><dd>${usage.inputTokens} in, ${usage.outputTokens} out</dd>
    ${state && html`<dt>Spent</dt><dd data-spent-calls=${state.spent.toolCalls}>${state.spent.modelResponses} responses, ${state.spent.toolCalls} tool calls, ${duration(state.spent.wallTimeMs)}</dd>`}
    ${Object.keys(left).length > 0 && html`<dt>Budget left</dt><dd data-budget-left>${Object.entries(left).map(budgetPart).join(', ')}</dd>`}
  </dl>`;
}

/** When the turn started and ended, and how long it took (or has run so far). */
function Times({ openedAt, closeTime, now }) {
  if (openedAt === undefined) return null;
  const end = closeTime ? Date.parse(closeTime) : undefined;
  return html`<dl class="facts times">
    <dt>Started</dt><dd data-started>${time(openedAt)}</dd>
    ${end !== undefined && html`<dt>Ended</dt><dd data-ended>${time(end)}</dd>`}
    <dt>${end !== undefined ? 'Took' : 'Running for'}</dt><dd data-took>${duration((end ?? now) - openedAt)}</dd>
  </dl>`;
}

/** What the turn was asked: its input messages, files as their kind and size. */
function TurnInput({ messages }) {
  return html`<details class="turn-input" open=${messages.length <= 2}>
    <summary>Input (${messages.length} message${messages.length === 1 ? '' : 's'})</summary>
    ${messages.map(
      (m) =>
        html`<div class="input-message" data-role=${m.role}><strong>${m.role}</strong><pre>${
          m.role === 'user' || m.role === 'system' ? contentText(m.content) : shortJson(m.content)
        }</pre></div>`,
    )}
  </details>`;
}

export function TurnPage({ turnId, session }) {
  const { timeline, turn, problem, ended } = useTurnStream(turnId);
  const running = !ended && !timeline.finished && turn?.running !== false;
  const now = useNow(running);
  const [asking, setAsking] = useState(null);
  const [notice, setNotice] = useState(null);
  const result = turn?.result;
  const status =
    timeline.finished?.status ?? result?.status ?? (turn?.running ? 'running' : turn?.workflowStatus);
  const reason = timeline.finished?.reason ?? result?.reason ?? turn?.problem;
  // A turn asked for a structured answer: its checked value, from the feed's end or the result.
  const structured = timeline.finished?.output !== undefined ? timeline.finished.output : result?.output;
  const canAct = session?.actionsEnabled !== false;
  const actions =
    canAct && running
      ? (call) => html`<${DecideCall} turnId=${turnId} call=${call} ask=${setAsking} />`
      : null;
  // What its running sub-agents wait for, under the call that runs each (decided there, if it may act).
  const subAgents = running
    ? (call) =>
        html`<${SubAgentWaits} turnId=${turnId} approvals=${subAgentWaitsOf(timeline.state, call.toolCallId)} ask=${canAct ? setAsking : null} />`
    : null;
  // A finished turn (one with a result) may be forked from any response or call of its record.
  const fork =
    canAct && !running && result
      ? (at) => html`<${ForkFrom} turnId=${turnId} at=${at} ask=${setAsking} />`
      : null;
  return html`
    <p><a href="#/turns">← Turns</a></p>
    <h1>Turn <code>${turnId}</code></h1>
    <section class="summary" aria-label="Summary">
      <p>Status: <strong class=${`status status-${status}`} data-turn-status=${status}>${status ?? '…'}</strong>
        ${reason && html` — <span class="reason">${reason}</span>`}</p>
      <${Times} openedAt=${timeline.openedAt} closeTime=${running ? undefined : turn?.closeTime} now=${now} />
      <${Usage}
        usage=${running ? timeline.state?.usage : (result?.usage ?? timeline.state?.usage)}
        state=${running ? timeline.state : undefined}
      />
      ${timeline.forked && html`<${ForkedFrom} forked=${timeline.forked} />`}
      ${turn?.webUiUrl && html`<p><a href=${turn.webUiUrl} target="_blank" rel="noreferrer">Open in the Temporal Web UI</a></p>`}
      ${canAct && running && html`<${CancelTurn} turnId=${turnId} ask=${setAsking} />`}
      ${!canAct && html`<p>Actions are off: the dashboard was started without a token.</p>`}
    </section>
    ${problem && html`<p class="problem" role="alert">${problem}</p>`}
    ${
      notice &&
      !(notice.whileRunning && !running) &&
      html`<p class=${notice.ok ? 'notice' : 'problem'} role=${notice.ok ? 'status' : 'alert'} data-action-result=${notice.ok ? 'ok' : notice.status}>
      ${notice.message}${notice.status === 401 ? html` — <a href="/login">log in</a>` : ''}</p>`
    }
    ${running && html`<${GrantsPanel} turnId=${turnId} grants=${timeline.grants} ask=${canAct ? setAsking : null} />`}
    ${timeline.input && html`<${TurnInput} messages=${timeline.input} />`}
    <h2>Timeline</h2>
    <${TimelineView} timeline=${timeline} now=${now} actions=${actions} fork=${fork} subAgents=${subAgents} />
    ${
      structured !== undefined
        ? html`<h2>Answer (structured)</h2><pre class="answer" data-structured-output>${JSON.stringify(structured, null, 2)}</pre>`
        : result?.text &&
          html`<h2>${result.status === 'completed' ? 'Answer' : 'Last text of the model'}</h2><p class="answer">${result.text}</p>`
    }
    <${ConfirmDialog} request=${asking} onDone=${(outcome) => {
      setAsking(null);
      if (outcome) setNotice(outcome);
    }} />
  `;
}
