import { withOfflineDashboard } from '../test/dashboard/offline-dashboard';

/**
 * Logins over real HTTP: each is a session of its own, held by this dashboard process; logging out
 * ends it for good (a copied cookie opens nothing after), and only this dashboard's pages may.
 */
const token = 'dashboard-token-0123456789abcdef';

async function login(url: string): Promise<{ cookie: string; csrf: string }> {
  const response = await fetch(`${url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ token }),
  });
  expect(response.status).toBe(200);
  const cookies = response.headers.getSetCookie().map((c) => c.split(';')[0] ?? '');
  const csrf = ((await response.json()) as { csrfToken: string }).csrfToken;
  return { cookie: cookies.join('; '), csrf };
}

const session = async (url: string, cookie: string) =>
  (await (await fetch(`${url}/api/session`, { headers: { cookie } })).json()) as { authenticated: boolean };

test('each login gets a session of its own; after logout its cookie opens nothing, while another login goes on', async () => {
  await withOfflineDashboard({ options: { token } }, async (url) => {
    const first = await login(url);
    const second = await login(url);
    expect(first.cookie).not.toBe(second.cookie);
    expect(first.csrf).not.toBe(second.csrf);
    expect(await session(url, first.cookie)).toMatchObject({ authenticated: true });

    const logout = await fetch(`${url}/api/logout`, {
      method: 'POST',
      headers: { cookie: first.cookie, origin: url },
    });
    expect(logout.status).toBe(204);
    expect(await session(url, first.cookie)).toMatchObject({ authenticated: false });
    // The old cookie, replayed, is refused for an action, not taken as a login.
    const replayed = await fetch(`${url}/api/turns/t1/cancel`, {
      method: 'POST',
      headers: { cookie: first.cookie, origin: url, 'x-csrf-token': first.csrf },
    });
    expect(replayed.status).toBe(401);
    expect(await session(url, second.cookie)).toMatchObject({ authenticated: true });
  });
});

test('another site cannot log a browser out: a logout from a foreign origin, or over https for this http dashboard, is refused', async () => {
  await withOfflineDashboard({ options: { token } }, async (url) => {
    const { cookie } = await login(url);
    for (const origin of ['https://evil.example', url.replace('http:', 'https:')]) {
      const refused = await fetch(`${url}/api/logout`, { method: 'POST', headers: { cookie, origin } });
      expect(refused.status).toBe(403);
    }
    expect(await session(url, cookie)).toMatchObject({ authenticated: true });
  });
});
