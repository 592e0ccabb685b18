// Turns: newest first from Temporal Visibility, filtered, searched, paged by "more", kept live
// by reading the shown pages again every few seconds (the list sends no query to any turn).
import { html, useEffect, useRef, useState } from '/vendor/preact-htm.js';
import { getJson } from './api.mjs';
import { duration, time } from './format.mjs';

const statuses = ['running', 'completed', 'cancelled', 'budget_exhausted', 'loop_detected', 'failed'];
const refreshMs = 3_000;

function queryOf({ filters, limit, cursor }) {
  const query = new URLSearchParams({ limit: String(limit) });
  if (filters.status) query.set('status', filters.status);
  if (filters.waiting) query.set('waitingForApproval', filters.waiting);
  if (filters.search.trim()) query.set('search', filters.search.trim());
  if (cursor) query.set('cursor', cursor);
  return `/api/turns?${query}`;
}

export function TurnsPage({ pageSize }) {
  const [filters, setFilters] = useState({ status: '', waiting: '', search: '' });
  const [list, setList] = useState({ turns: [], nextCursor: undefined, loaded: false });
  const [problem, setProblem] = useState('');
  const shown = useRef(pageSize);

  // The first page for these filters, then the same span again every few seconds.
  useEffect(() => {
    let stopped = false;
    shown.current = pageSize;
    const load = async () => {
      try {
        const limit = Math.min(200, shown.current);
        const page = await getJson(queryOf({ filters, limit }));
        if (stopped) return;
        setList({ ...page, loaded: true });
        setProblem('');
      } catch (error) {
        if (!stopped) setProblem(error.message);
      }
    };
    load();
    const timer = setInterval(load, refreshMs);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [filters.status, filters.waiting, filters.search]);

  const more = async () => {
    try {
      const page = await getJson(queryOf({ filters, limit: pageSize, cursor: list.nextCursor }));
      shown.current += page.turns.length;
      const known = new Set(list.turns.map((t) => t.turnId));
      setList({
        ...page,
        turns: [...list.turns, ...page.turns.filter((t) => !known.has(t.turnId))],
        loaded: true,
      });
    } catch (error) {
      setProblem(error.message);
    }
  };
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
    ${problem && html`<p class="problem" role="alert">${problem}</p>`}
    <div class="table-wrap">
      <table class="turns">
        <caption>${list.loaded ? `${list.turns.length} turn${list.turns.length === 1 ? '' : 's'} shown, newest first` : 'Loading turns…'}</caption>
        <thead>
          <tr><th scope="col">Turn</th><th scope="col">Status</th><th scope="col">Conversation</th>
            <th scope="col">Model</th><th scope="col">Started</th><th scope="col">Duration</th>
            <th scope="col">Calls</th><th scope="col">Tokens</th><th scope="col">Approval</th></tr>
        </thead>
        <tbody>
          ${list.turns.map(
            (turn) => html`
              <tr data-turn-id=${turn.turnId}>
                <th scope="row"><a class="id" title=${turn.turnId} href=${`#/turns/${encodeURIComponent(turn.turnId)}`}>${turn.turnId}</a></th>
                <td data-label="Status"><span class=${`status status-${turn.status}`}>${turn.status}</span></td>
                <td data-label="Conversation">${turn.conversationId ? html`<span class="id" title=${turn.conversationId}>${turn.conversationId}</span>` : ''}</td>
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
    ${list.nextCursor && html`<button type="button" onClick=${more}>More turns</button>`}
  `;
}
