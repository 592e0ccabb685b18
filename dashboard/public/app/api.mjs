// The JSON API of docs/dashboard-api.md: reads, and actions that carry the session's CSRF token.

let session = { authenticated: false, actionsEnabled: false };

/** What the page may do (`GET /api/session`), read once at start and after a login. */
export async function loadSession() {
  session = await getJson('/api/session');
  return session;
}

export function currentSession() {
  return session;
}

/** Ends this browser's login on the dashboard (its cookie opens nothing after), then reads the session again. */
export async function logout() {
  const response = await fetch('/api/logout', { method: 'POST' });
  if (!response.ok && response.status !== 204) await answerOf(response);
  return loadSession();
}

/** A GET answered with JSON, or an Error carrying the API's message and status. */
export async function getJson(path) {
  const response = await fetch(path, { headers: { accept: 'application/json' } });
  return answerOf(response);
}

/** Where a decision on a waiting call is posted: `verb` is approve, reject or respond. */
/** A call's action; a call of a sub-agent (`agentCallId`) is decided on its parent, which sends it on. */
export const callActionPath = (turnId, { toolCallId, agentCallId }, verb) =>
  `/api/turns/${encodeURIComponent(turnId)}/calls/${encodeURIComponent(toolCallId)}/${verb}` +
  (agentCallId ? `?agentCall=${encodeURIComponent(agentCallId)}` : '');

/** A POST action: with the CSRF header a cookie session needs (none needed otherwise). */
export async function postAction(path, body) {
  const headers = { 'content-type': 'application/json' };
  if (session.csrfToken) headers['x-csrf-token'] = session.csrfToken;
  const response = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body ?? {}) });
  return answerOf(response);
}

async function answerOf(response) {
  const body = await response.json().catch(() => ({}));
  if (response.ok) return body;
  const error = new Error(body.error || `the dashboard answered ${response.status}`);
  error.status = response.status;
  throw error;
}
