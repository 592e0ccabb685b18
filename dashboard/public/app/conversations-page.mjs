// Conversations: newest first from Temporal Visibility, filtered by status, searched by id prefix,
// paged by "more", kept live by reading the shown pages again (no query goes to any conversation).
import { html, useState } from '/vendor/preact-htm.js';
import { time } from './format.mjs';
import { conversationHref } from './links.mjs';
import { usePagedList } from './paged-list.mjs';

export function ConversationsPage({ pageSize }) {
  const [filters, setFilters] = useState({ status: '', search: '' });
  const list = usePagedList({
    path: '/api/conversations',
    field: 'conversations',
    idOf: (c) => c.conversationId,
    filters: { status: filters.status, search: filters.search.trim() },
    pageSize,
  });
  const set = (field) => (event) => setFilters({ ...filters, [field]: event.currentTarget.value });
  const count = list.items.length;

  return html`
    <h1>Conversations</h1>
    <form class="filters" role="search" onSubmit=${(event) => event.preventDefault()}>
      <label>Status
        <select name="status" value=${filters.status} onChange=${set('status')}>
          <option value="">any</option>
          <option value="open">open</option>
          <option value="closed">closed</option>
        </select>
      </label>
      <label>Search (conversation id starts with)
        <input name="search" type="search" value=${filters.search} onInput=${set('search')} />
      </label>
    </form>
    ${list.problem && html`<p class="problem" role="alert">${list.problem}</p>`}
    <div class="table-wrap">
      <table class="turns conversations">
        <caption>${list.loaded ? `${count} conversation${count === 1 ? '' : 's'} shown, newest first` : 'Loading conversations…'}</caption>
        <thead>
          <tr><th scope="col">Conversation</th><th scope="col">Status</th><th scope="col">Started</th>
            <th scope="col">Closed</th></tr>
        </thead>
        <tbody>
          ${list.items.map(
            (c) => html`
              <tr data-conversation-id=${c.conversationId}>
                <th scope="row"><a class="id" title=${c.conversationId} href=${conversationHref(c.conversationId)}>${c.conversationId}</a></th>
                <td data-label="Status"><span class=${`status status-${c.status}`}>${c.status}</span></td>
                <td data-label="Started">${time(c.startTime)}</td>
                <td data-label="Closed">${time(c.closeTime)}</td>
              </tr>
            `,
          )}
        </tbody>
      </table>
    </div>
    ${list.nextCursor && html`<button type="button" onClick=${list.more}>More conversations</button>`}
  `;
}
