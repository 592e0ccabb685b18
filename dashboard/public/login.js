// The login URL `durable-turns dev` prints carries the token in the fragment (#token=…), which the
// browser never sends: this script posts it once, drops it from the address bar, and goes on.
async function logIn(token) {
  const problem = document.getElementById('problem');
  const response = await fetch('/api/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  if (response.ok) {
    location.replace('/');
    return;
  }
  const body = await response.json().catch(() => ({}));
  problem.textContent = body.error || `login failed (${response.status})`;
}

const fragment = new URLSearchParams(location.hash.slice(1));
const fromUrl = fragment.get('token');
if (fromUrl) {
  history.replaceState(null, '', location.pathname);
  logIn(fromUrl);
}
document.getElementById('login').addEventListener('submit', (event) => {
  event.preventDefault();
  logIn(document.getElementById('token').value);
});
