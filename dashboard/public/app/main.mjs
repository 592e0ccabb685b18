// The dashboard's shell: a header, hash routes (#/turns, #/turns/<id>, #/conversations,
// #/conversations/<id>, #/health), the session.
import { html, render, useEffect, useState } from '/vendor/preact-htm.js';
import { loadSession, logout } from './api.mjs';
import { ConversationPage } from './conversation-page.mjs';
import { ConversationsPage } from './conversations-page.mjs';
import { HealthPage } from './health-page.mjs';
import { TurnPage } from './turn-page.mjs';
import { TurnsPage } from './turns-page.mjs';

function routeOf(hash) {
  const [where, query = ''] = hash.replace(/^#\/?/, '').split('?');
  const parts = where.split('/').map(decodeURIComponent);
  if (parts[0] === 'turns' && parts[1]) return { page: 'turn', turnId: parts[1] };
  if (parts[0] === 'conversations' && parts[1]) return { page: 'conversation', conversationId: parts[1] };
  if (parts[0] === 'health') return { page: 'health' };
  // #/turns?limit=N (#/conversations too): how many a page (and each "more") brings, 1 to 200.
  const limit = Number(new URLSearchParams(query).get('limit'));
  const pageSize = Number.isInteger(limit) && limit >= 1 && limit <= 200 ? limit : 50;
  return { page: parts[0] === 'conversations' ? 'conversations' : 'turns', pageSize };
}

function SessionBadge({ session, onLogout }) {
  if (!session) return null;
  // A bearer token is not a login this page can end; a cookie session is.
  if (session.authenticated && session.via === 'cookie')
    return html`<span class="session">logged in <button type="button" class="logout" onClick=${onLogout}>Log out</button></span>`;
  if (session.authenticated) return html`<span class="session">logged in</span>`;
  return html`<a class="session" href="/login">log in${session.actionsEnabled ? ' to act' : ''}</a>`;
}

function App() {
  const [route, setRoute] = useState(routeOf(location.hash));
  const [session, setSession] = useState(null);
  useEffect(() => {
    const onHash = () => setRoute(routeOf(location.hash));
    addEventListener('hashchange', onHash);
    loadSession().then(setSession, () => setSession({ authenticated: false, actionsEnabled: false }));
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const current = (page) => (route.page === page ? 'page' : undefined);
  return html`
    <header class="top">
      <strong>durable-turns</strong>
      <nav aria-label="Pages">
        <a href="#/turns" aria-current=${current('turns')}>Turns</a>
        <a href="#/conversations" aria-current=${current('conversations')}>Conversations</a>
        <a href="#/health" aria-current=${current('health')}>Tool health</a>
      </nav>
      <${SessionBadge} session=${session} onLogout=${() => logout().then(setSession, () => setSession({ authenticated: false, actionsEnabled: false }))} />
    </header>
    <main>
      ${route.page === 'turns' && html`<${TurnsPage} key=${route.pageSize} pageSize=${route.pageSize} />`}
      ${route.page === 'turn' && html`<${TurnPage} key=${route.turnId} turnId=${route.turnId} session=${session} />`}
      ${route.page === 'conversations' && html`<${ConversationsPage} key=${route.pageSize} pageSize=${route.pageSize} />`}
      ${route.page === 'conversation' && html`<${ConversationPage} key=${route.conversationId} conversationId=${route.conversationId} session=${session} />`}
      ${route.page === 'health' && html`<${HealthPage} />`}
    </main>
  `;
}

const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
