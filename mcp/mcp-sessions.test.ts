import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { everythingOverStdio, relayedEverythingOverStdio, relayLog } from '../test/support/mcp-servers';
import { McpConnectError } from './mcp-call-failure';
import { type McpServerConfig, mcpServerConfigSchema } from './mcp-server-config';
import { McpSessions, type SessionClaim } from './mcp-sessions';

/**
 * `server-everything`'s toggle keeps its state per session (over stdio, per server process): the
 * first call in a session says "Started …", the next "Stopped …".
 */
async function toggle(
  sessions: McpSessions,
  key: string,
  claim: SessionClaim = {},
): Promise<{ said: string; renewed: boolean }> {
  const { result, renewed } = await sessions.callTool(
    key,
    {
      tool: 'toggle-subscriber-updates',
      args: {},
      meta: {},
      signal: new AbortController().signal,
      onProgress: () => {},
    },
    claim,
  );
  const [block] = result.content;
  const said = block?.type === 'text' ? block.text.split(' ')[0] : '';
  return { said: said ?? '', renewed };
}

const pools: McpSessions[] = [];
function pool(options: Partial<McpServerConfig> = {}, server = everythingOverStdio): McpSessions {
  const sessions = new McpSessions(
    mcpServerConfigSchema.parse(server({ session: 'conversation', ...options })),
  );
  pools.push(sessions);
  return sessions;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((sessions) => sessions.close()));
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('each key has a session of its own, kept from call to call; a first session is not a renewed one', async () => {
  const sessions = pool();

  expect(await toggle(sessions, 'a')).toEqual({ said: 'Started', renewed: false });
  expect(await toggle(sessions, 'b')).toEqual({ said: 'Started', renewed: false });
  expect(await toggle(sessions, 'a')).toEqual({ said: 'Stopped', renewed: false });
  expect(sessions.keys()).toEqual(['b', 'a']);
});

test('closeKey closes the key’s session: its next call runs in a new one and is told so, once', async () => {
  const sessions = pool();
  await toggle(sessions, 'a');
  await toggle(sessions, 'b');

  await sessions.closeKey('a');

  expect(sessions.keys()).toEqual(['b']);
  expect(await toggle(sessions, 'a')).toEqual({ said: 'Started', renewed: true });
  expect(await toggle(sessions, 'a')).toEqual({ said: 'Stopped', renewed: false });
  // The other key's session was left alone.
  expect(await toggle(sessions, 'b')).toEqual({ said: 'Stopped', renewed: false });
});

test('a session idle for sessionIdleMs closes; one with a call running stays open however long the call takes', async () => {
  const sessions = pool({ sessionIdleMs: 300 });
  await toggle(sessions, 'idle');
  const long = sessions.callTool('busy', {
    tool: 'trigger-long-running-operation',
    args: { duration: 1, steps: 2 },
    meta: {},
    signal: new AbortController().signal,
    onProgress: () => {},
  });

  await until(() => !sessions.keys().includes('idle'), 'the idle session to close');
  expect(sessions.keys()).toEqual(['busy']);
  await long;
  expect(sessions.keys()).toEqual(['busy']);
  expect(await toggle(sessions, 'idle')).toEqual({ said: 'Started', renewed: true });
});

test('past maxSessions the least recently used session without a call running closes', async () => {
  const sessions = pool({ maxSessions: 2 });
  await toggle(sessions, 'a');
  await toggle(sessions, 'b');
  await toggle(sessions, 'a');

  await toggle(sessions, 'c');

  expect(sessions.keys()).toEqual(['a', 'c']);
  expect(await toggle(sessions, 'b')).toEqual({ said: 'Started', renewed: true });
  expect(sessions.keys()).toEqual(['c', 'b']);
});

test('a server that died is started again for the key’s next call, which is told its session is new', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-sessions-'));
  const logFile = path.join(dir, 'relay.log');
  try {
    const sessions = pool({}, (options) => relayedEverythingOverStdio(logFile, options));
    await toggle(sessions, 'a');
    const [pid] = (await relayLog(logFile)).pids;
    process.kill(pid ?? 0, 'SIGKILL');
    await until(() => !alive(pid ?? 0), 'the server to exit');

    // A call the dead connection takes fails (it was not sent); the notice waits for one that returns.
    let next = await toggle(sessions, 'a').catch(() => undefined);
    next ??= await toggle(sessions, 'a');

    expect(next).toEqual({ said: 'Started', renewed: true });
    expect((await relayLog(logFile)).pids).toHaveLength(2);
    // Stopped again, so that the server behind the relay exits when the relay goes.
    expect(await toggle(sessions, 'a')).toEqual({ said: 'Stopped', renewed: false });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('close closes every session, and later calls fail as not sent', async () => {
  const sessions = pool();
  await toggle(sessions, 'a');
  await toggle(sessions, 'b');

  await sessions.close();

  expect(sessions.keys()).toEqual([]);
  await expect(toggle(sessions, 'a')).rejects.toBeInstanceOf(McpConnectError);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('a session the turn says is not the current one (its conversation went on on another host) is opened anew and told so; calls that say the same are not', async () => {
  const a = pool();
  // The conversation's first call, here (this host's queue is "A").
  expect(await toggle(a, 'c', { openedBefore: false, here: false })).toEqual({
    said: 'Started',
    renewed: false,
  });
  expect(await toggle(a, 'c', { openedBefore: true, here: true, holder: 'A' })).toEqual({
    said: 'Stopped',
    renewed: false,
  });
  // It went on on host B since; now a call comes back here: this session's state is not its latest.
  expect(await toggle(a, 'c', { openedBefore: true, here: false, holder: 'B' })).toEqual({
    said: 'Started',
    renewed: true,
  });
  // Another call of that wave, with the same belief, shares the new session.
  expect(await toggle(a, 'c', { openedBefore: true, here: false, holder: 'B' })).toEqual({
    said: 'Stopped',
    renewed: false,
  });
  // Once the turn knows this host holds them, they are its current sessions.
  expect(await toggle(a, 'c', { openedBefore: true, here: true, holder: 'A' })).toEqual({
    said: 'Started',
    renewed: false,
  });
});
