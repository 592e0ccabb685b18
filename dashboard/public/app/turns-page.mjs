// Turns: newest first from Temporal Visibility, filtered, searched, paged by "more", kept live
// by reading the shown pages again (the list sends no query to any turn).
import { html, useState } from '/vendor/preact-htm.js';
import { duration, time } from './format.mjs';
import { ConversationOfTurn, TurnLink } from './links.mjs';
import { usePagedList } from './paged-list.mjs';

const statuses = ['running', 'completed', 'cancelled', 'budget_exhausted', 'loop_detected', 'failed'];

export function TurnsPage({ pageSize }) {
  const [filters, setFilters] = useState({ status: '', waiting: '', search: '' });
  const list = usePagedList({
    path: '/api/turns',
    field: 'turns',
    idOf: (turn) => turn.turnId,
    filters: { status: filters.status, waitingForApproval: filters.waiting, search: filters.search.trim() },
    pageSize,
  });
  const now = Date.now();
  const set = (field) => (event) => setFilters({ ...filters, [field]: event.currentTarget.value });

  return html`
    <h1>Turns</h1>
    <form class="filters" role="search" onSubmit=${(event) => event.preventDefault()}>
      <label>Status
        <select name="status" value=${filters.status} onChange=${set('status')}>
          <option value="">any</option>
          ${statuses.map((s) => html`<option value=${s}>${s}</option>`)}
        </select>
      </label>
      <label>Waiting for approval
        <select name="waiting" value=${filters.waiting} onChange=${set('waiting')}>
          <option value="">either</option>
          <option value="true">waiting</option>
          <option value="false">not waiting</option>
        </select>
      </label>
      <label>Search (turn or conversation id starts with)
        <input name="search" type="search" value=${filters.search} onInput=${set('search')} />
      </label>
    </form>
    ${list.problem && html`<p class="problem" role="alert">${list.problem}</p>`}
    <div class="table-wrap">
      <table class="turns">
        <caption>${list.loaded ? `${list.items.length} turn${list.items.length === 1 ? '' : 's'} shown, newest first` : 'Loading turns…'}</caption>
        <thead>
          <tr><th scope="col">Turn</th><th scope="col">Status</th><th scope="col">Conversation</th>
            <th scope="col">Model</th><th scope="col">Started</th><th scope="col">Duration</th>
            <th scope="col">Calls</th><th scope="col">Tokens</th><th scope="col">Approval</th></tr>
        </thead>
        <tbody>
          ${list.items.map(
            (turn) => html`
              <tr data-turn-id=${turn.turnId}>
                <th scope="row"><${TurnLink} turnId=${turn.turnId} /></th>
                <td data-label="Status"><span class=${`status status-${turn.status}`}>${turn.status}</span></td>
                <td data-label="Conversation">${turn.conversationId ? html`<${ConversationOfTurn} turn=${turn} />` : ''}</td>
                <td data-label="Model">${turn.model ?? ''}</td>
                <td data-label="Started">${time(turn.startTime)}</td>
                <td data-label="Duration">${
                  turn.durationMs === undefined
                    ? html`<span class="so-far" title="running: time since it started">${duration(Math.max(0, now - Date.parse(turn.startTime)))} so far</span>`
                    : duration(turn.durationMs)
                }</td>
                <td data-label="Calls" class="number">${turn.toolCalls ?? ''}</td>
                <td data-label="Tokens" class="number">${turn.tokens ?? ''}</td>
                <td data-label="Approval">${turn.waitingForApproval ? html`<span class="badge waiting">waiting</span>` : ''}</td>
              </tr>
            `,
          )}
        </tbody>
      </table>
    </div>
    ${list.nextCursor && html`<button type="button" onClick=${list.more}>More turns</button>`}
  `;
}
