import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConversationClient } from '../client/conversation-client';
import { freePort } from '../devserver/free-port';
import { openGate, streamedWords } from '../test/agents/operator-agent';
import { CliProcess, cli } from '../test/cli/support/cli-process';
import { uniqueTurnId } from '../test/conformance/support';
import { startTestDashboard } from '../test/dashboard/dashboard-fixture';
import { type ReadEvent, readSse } from '../test/dashboard/sse-reader';
import { pollFor } from '../test/temporal/support/poll';
import { healthHistoryResponseSchema, turnListResponseSchema, turnResponseSchema } from './api-schemas';
import { conversationListResponseSchema, conversationResponseSchema } from './conversation-schemas';
import { startDashboard } from './start-dashboard';

/**
 * The dashboard's JSON API over real HTTP, against the suite's Temporal server and a real worker
 * process (`durable-turns worker` for test/agents/operator-agent.ts): reads, live events, actions, and who
 * may do what.
 */
const taskQueue = `dashboard-${process.pid}`;
const token = 'test-token-0123456789abcdefghijkl';
const agent = path.join(__dirname, '../test/agents/operator-agent.ts');
const gates = mkdtempSync(path.join(tmpdir(), 'dashboard-api-gates-'));
let worker: CliProcess;
let dashboard: Awaited<ReturnType<typeof startTestDashboard>>;
/** Every body the dashboard sent in these tests, to check no secret is among them. */
const bodies: string[] = [];

const bearer = { authorization: `Bearer ${token}` };

async function api(
  route: string,
  init: RequestInit & { headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${dashboard.url}${route}`, init);
  const text = await response.text();
  bodies.push(text);
  return { status: response.status, body: text ? JSON.parse(text) : {}, headers: response.headers };
}

function start(model: string, label: string, extra: { conversationId?: string } = {}) {
  const turnId = uniqueTurnId(label);
  return dashboard.client
    .start({ turnId, model, input: [{ role: 'user', content: label }], ...extra })
    .then((handle) => ({ turnId, handle }));
}

async function waitForApproval(turnId: string): Promise<void> {
  await pollFor(`turn ${turnId} to wait for approval`, async () => {
    const { body } = await api(`/api/turns/${encodeURIComponent(turnId)}`);
    const state = body.state as { phase?: string } | undefined;
    return state?.phase === 'awaiting-approval' ? true : undefined;
  });
}

beforeAll(async () => {
  worker = new CliProcess({
    args: ['worker', '--agent', agent, '--json'],
    env: { DURABLE_TURNS_TASK_QUEUE: taskQueue, DURABLE_TURNS_TEST_GATES: gates },
  });
  await worker.waitFor({ pattern: /"worker":"ready"/, what: 'the worker was ready' });
  dashboard = await startTestDashboard({
    taskQueue,
    options: { token, webUiUrl: 'http://127.0.0.1:8233' },
    lingerMs: 60_000,
  });
}, 90_000);
afterAll(async () => {
  await dashboard?.close();
  worker?.kill('SIGINT');
  await worker?.done;
  rmSync(gates, { recursive: true, force: true });
  expect(bodies.filter((body) => body.includes(token))).toEqual([]);
});

describe('reading turns', () => {
  test('GET /api/turns pages through a conversation by cursor, newest first, no turn twice; filters by status and search', async () => {
    const conversationId = uniqueTurnId('conv');
    const started: string[] = [];
    for (const i of [1, 2, 3]) {
      const { turnId, handle } = await start('quick', `list-${i}`, { conversationId });
      await handle.result();
      started.push(turnId);
    }
    const listed = () => api(`/api/turns?conversation=${conversationId}&status=completed&limit=2`);
    const first = await pollFor('the three turns in visibility', async () => {
      const page = await listed();
      const all = await api(`/api/turns?conversation=${conversationId}&status=completed`);
      return (all.body.turns as unknown[]).length === 3 ? page : undefined;
    });
    expect(first.status).toBe(200);
    const page1 = turnListResponseSchema.parse(first.body);
    expect(page1.turns).toHaveLength(2);
    expect(page1.nextCursor).toEqual(expect.any(String));
    const page2 = turnListResponseSchema.parse(
      (await api(`/api/turns?conversation=${conversationId}&limit=2&cursor=${page1.nextCursor}`)).body,
    );
    const ids = [...page1.turns, ...page2.turns].map((t) => t.turnId);
    expect([...ids].sort()).toEqual([...started].sort());
    expect(page1.turns[0]).toMatchObject({
      conversationId,
      status: 'completed',
      waitingForApproval: false,
      durationMs: expect.any(Number),
      webUiUrl: `http://127.0.0.1:8233/namespaces/${dashboard.namespace}/workflows/${page1.turns[0]?.turnId}`,
    });
    const searched = await api(`/api/turns?search=${encodeURIComponent(conversationId)}`);
    expect((searched.body.turns as { turnId: string }[]).map((t) => t.turnId).sort()).toEqual(
      [...started].sort(),
    );
    const none = await api(`/api/turns?conversation=${conversationId}&status=cancelled`);
    expect(none.body.turns).toEqual([]);
  });

  test('GET /api/turns/:id answers a running turn with its state and a finished one with its result', async () => {
    const { turnId, handle } = await start('approval', 'show-approval');
    await waitForApproval(turnId);
    const running = turnResponseSchema.parse((await api(`/api/turns/${turnId}`)).body);
    expect(running).toMatchObject({ turnId, running: true, workflowStatus: 'RUNNING' });
    expect(running.state).toMatchObject({
      phase: 'awaiting-approval',
      calls: [expect.objectContaining({ toolCallId: 'deploy_prod', phase: 'awaiting-approval' })],
    });
    const waiting = await pollFor('the waiting turn in the waiting-for-approval filter', async () => {
      const { body } = await api('/api/turns?waitingForApproval=true&limit=200');
      return (body.turns as { turnId: string }[]).some((t) => t.turnId === turnId) ? true : undefined;
    });
    expect(waiting).toBe(true);
    await handle.approve('deploy_prod');
    await handle.result();
    const finished = turnResponseSchema.parse((await api(`/api/turns/${turnId}`)).body);
    expect(finished).toMatchObject({ running: false, workflowStatus: 'COMPLETED' });
    expect(finished.result).toMatchObject({ status: 'completed', text: 'Deployed to prod.' });
  });

  test('an unknown turn is a 404 naming it and the namespace; malformed input is a 400 naming the field', async () => {
    const missing = await api('/api/turns/no-such-turn');
    expect(missing).toMatchObject({
      status: 404,
      body: { error: expect.stringContaining(`no turn no-such-turn in namespace ${dashboard.namespace}`) },
    });
    const limit = await api('/api/turns?limit=0');
    expect(limit.status).toBe(400);
    expect(limit.body.error).toMatch(/limit/);
    const approval = await api('/api/turns?waitingForApproval=maybe');
    expect(approval.body.error).toMatch(/waitingForApproval: expected true or false/);
    for (const cursor of ['bm90LWEtdG9rZW4', 'bm90LWEtdG9rZW4.AAAAAAAAAAAAAAAAAAAAAA']) {
      const forged = await api(`/api/turns?cursor=${cursor}`);
      expect(forged).toMatchObject({ status: 400, body: { error: expect.stringMatching(/cursor/) } });
    }
    const unknown = await api('/api/turns?staus=completed');
    expect(unknown.body.error).toMatch(/staus/);
    const reason = await api('/api/turns/no-such-turn/calls/c1/reject', {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'x'.repeat(2_001) }),
    });
    expect(reason.status).toBe(400);
    expect(reason.body.error).toMatch(/reason/);
  });

  test('GET /api/health shows the fleet of the task queue, the worker among it', async () => {
    const health = await pollFor('the worker in the fleet health', async () => {
      const { status, body } = await api('/api/health');
      return status === 200 && (body.workers as unknown[]).length > 0 ? body : undefined;
    });
    expect(health).toMatchObject({
      taskQueue,
      workers: [expect.objectContaining({ identity: expect.any(String) })],
    });
    const stream = await readSse({
      url: `${dashboard.url}/api/health/events`,
      until: (e) => e.event === 'health',
    });
    expect(stream.events.at(-1)?.data).toMatchObject({ taskQueue });
    // The fleet workflow made a point of the worker's first report: the history has it.
    const { status, body } = await api('/api/health/history');
    expect(status).toBe(200);
    const history = healthHistoryResponseSchema.parse(body);
    expect(history.points.length).toBeGreaterThan(0);
    expect(history.retentionMs).toBe(30 * 60_000);
    expect(history.points.map((p) => p.at)).toEqual(history.points.map((p) => p.at).sort((a, b) => a - b));
  });
});

describe('live events', () => {
  const entryTypes = (events: ReadEvent[]) =>
    events.filter((e) => e.event === 'entry').map((e) => (e.data as { entry: { type: string } }).entry.type);

  test("a turn's event stream shows its entries and its text as it streams, until the end", async () => {
    const { turnId } = await start('streaming', 'sse-stream');
    // The model streams half its words and holds until the first piece reached this viewer.
    const stream = await readSse({
      url: `${dashboard.url}/api/turns/${turnId}/events`,
      onEvent: (event) => {
        if (event.event === 'live') openGate({ folder: gates, turnId, gate: 'stream-rest' });
      },
    });
    expect(stream.status).toBe(200);
    expect(stream.closedByServer).toBe(true);
    expect(stream.events.at(-1)).toEqual({ event: 'end', data: { turnId } });
    expect(entryTypes(stream.events)).toEqual(
      expect.arrayContaining(['turn.started', 'model.responded', 'turn.finished']),
    );
    const ids = stream.events.filter((e) => e.event === 'entry').map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const responded = stream.events.findIndex(
      (e) => e.event === 'entry' && (e.data as { entry: { type: string } }).entry.type === 'model.responded',
    );
    const deltas = stream.events
      .slice(0, responded)
      .filter((e) => e.event === 'live' && (e.data as { kind: string }).kind === 'delta');
    // Live text came in more than one piece while it streamed, and adds up to what was recorded.
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((e) => (e.data as { delta: string }).delta).join('')).toBe(streamedWords.join(' '));
    expect(stream.events.some((e) => e.event === 'state')).toBe(true);
  });

  test('Last-Event-ID resumes after that entry', async () => {
    const { turnId, handle } = await start('quick', 'sse-resume');
    await handle.result();
    const whole = await readSse({ url: `${dashboard.url}/api/turns/${turnId}/events` });
    const seqs = whole.events.filter((e) => e.event === 'entry').map((e) => Number(e.id));
    const from = seqs[Math.floor(seqs.length / 2)] ?? 0;
    const resumed = await readSse({
      url: `${dashboard.url}/api/turns/${turnId}/events`,
      headers: { 'last-event-id': String(from) },
    });
    expect(resumed.events.filter((e) => e.event === 'entry').map((e) => Number(e.id))).toEqual(
      seqs.filter((s) => s > from),
    );
  });

  test('an entry that adds calls carries their waves, as the engine planned them, for a finished turn too', async () => {
    const { turnId, handle } = await start('quick', 'sse-waves');
    await handle.result();
    const stream = await readSse({ url: `${dashboard.url}/api/turns/${turnId}/events` });
    const withWaves = stream.events.flatMap((e) => {
      const data = e.data as { entry?: { type: string }; waves?: Record<string, number> };
      return e.event === 'entry' && data.waves ? [{ type: data.entry?.type, waves: data.waves }] : [];
    });
    // Two concurrency-safe echoes: one wave; the final response adds no call, so no waves.
    expect(withWaves).toEqual([{ type: 'model.responded', waves: { echo_a: 0, echo_b: 0 } }]);
  });

  test('six viewers of a running turn cost it one watch: queries bounded by the turn, not the viewers', async () => {
    const viewers = 6;
    const { turnId } = await start('streaming', 'sse-fanout');
    // The response holds half-streamed until every viewer saw some of it: all six watch it live.
    const watching = new Set<number>();
    const streams = await Promise.all(
      Array.from({ length: viewers }, (_, viewer) =>
        readSse({
          url: `${dashboard.url}/api/turns/${turnId}/events`,
          onEvent: (event) => {
            if (event.event !== 'live') return;
            watching.add(viewer);
            if (watching.size === viewers) openGate({ folder: gates, turnId, gate: 'stream-rest' });
          },
        }),
      ),
    );
    const entries = entryTypes(streams[0]?.events ?? []);
    for (const stream of streams) {
      expect(entryTypes(stream.events)).toEqual(entries);
      expect(stream.events.at(-1)?.event).toBe('end');
    }
    expect(dashboard.counts.watches.get(turnId)).toBe(1);
    // State is read at most once per entry (plus once at the start), whatever the viewers.
    expect(dashboard.counts.states.get(turnId) ?? 0).toBeLessThanOrEqual(entries.length + 1);
    // The one watcher queries the journal only when history moved: at most once per history event.
    const { historyLength } = await dashboard.client.client.workflow.getHandle(turnId).describe();
    expect(dashboard.counts.queries.get(turnId) ?? 0).toBeLessThanOrEqual(historyLength + entries.length + 1);
    // A seventh viewer of the finished turn is answered from the kept feed: still one watch.
    const late = await readSse({ url: `${dashboard.url}/api/turns/${turnId}/events` });
    expect(entryTypes(late.events)).toEqual(entries);
    expect(dashboard.counts.watches.get(turnId)).toBe(1);
  });
});

describe('actions', () => {
  test('approve with a reason: the waiting call runs and the turn completes; "always" answers with the grant it made', async () => {
    const { turnId, handle } = await start('approval', 'api-approve');
    await waitForApproval(turnId);
    const approved = await api(`/api/turns/${turnId}/calls/deploy_prod/approve`, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({
        reason: 'change ticket 42',
        remember: { match: [{ path: 'target', pattern: '^prod' }] },
      }),
    });
    expect(approved).toMatchObject({
      status: 200,
      body: {
        turnId,
        toolCallId: 'deploy_prod',
        approved: true,
        reason: 'change ticket 42',
        remember: { scope: 'turn', match: [{ path: 'target', pattern: '^prod' }] },
        grantId: `${turnId}/deploy_prod`,
      },
    });
    expect(await handle.result()).toMatchObject({ status: 'completed', text: 'Deployed to prod.' });
  });

  test('grants: one that does not cover the waiting call leaves it waiting until revoked; revoking it again is a 409; one whose regex covers it lets it run, recorded as approved by it', async () => {
    const { turnId, handle } = await start('approval', 'api-grant');
    await waitForApproval(turnId);
    const post = (route: string, body?: Record<string, unknown>) =>
      api(`/api/turns/${turnId}${route}`, {
        method: 'POST',
        headers: body ? { ...bearer, 'content-type': 'application/json' } : bearer,
        ...(body && { body: JSON.stringify(body) }),
      });
    const stagingOnly = { path: 'target', equals: 'staging' };
    const granted = await post('/grants', {
      toolName: 'deploy',
      grantId: 'staging-only',
      match: [stagingOnly],
      reason: 'staging is fine',
    });
    expect(granted).toMatchObject({
      status: 200,
      body: {
        turnId,
        grantId: 'staging-only',
        toolName: 'deploy',
        match: [stagingOnly],
        scope: 'turn',
        reason: 'staging is fine',
        by: 'dashboard token holder',
        via: 'dashboard',
      },
    });
    const stateOf = async () => turnResponseSchema.parse((await api(`/api/turns/${turnId}`)).body).state;
    // The deploy targets prod: not covered, it waits on; the grant is in force, with who gave it.
    expect(await stateOf()).toMatchObject({
      phase: 'awaiting-approval',
      grants: [
        expect.objectContaining({
          grantId: 'staging-only',
          by: 'dashboard token holder',
          via: 'dashboard',
          at: expect.any(Number),
        }),
      ],
    });

    const revoke = () => post('/grants/staging-only/revoke');
    expect(await revoke()).toMatchObject({
      status: 200,
      body: {
        turnId,
        grantId: 'staging-only',
        revoked: true,
        by: 'dashboard token holder',
        via: 'dashboard',
      },
    });
    expect((await stateOf())?.grants).toBeUndefined();
    expect(await revoke()).toMatchObject({
      status: 409,
      body: {
        error: `cannot revoke grant staging-only of turn ${turnId}: no grant "staging-only" is in force in turn ${turnId}`,
      },
    });

    // Its id defaults to the tool's name.
    const covering = await post('/grants', {
      toolName: 'deploy',
      match: [{ path: 'target', pattern: '^prod$' }],
    });
    expect(covering).toMatchObject({ status: 200, body: { grantId: 'deploy' } });
    expect(await handle.result()).toMatchObject({ status: 'completed', text: 'Deployed to prod.' });
    const stream = await readSse({ url: `${dashboard.url}/api/turns/${turnId}/events` });
    const entries = stream.events.flatMap((e) => {
      const entry = (e.data as { entry?: { type: string } }).entry;
      return entry?.type.startsWith('approval.') || entry?.type === 'tool.approval_decided' ? [entry] : [];
    });
    expect(entries).toEqual([
      { type: 'approval.granted', grant: expect.objectContaining({ grantId: 'staging-only' }) },
      expect.objectContaining({
        type: 'approval.revoked',
        grantId: 'staging-only',
        by: 'dashboard token holder',
      }),
      { type: 'approval.granted', grant: expect.objectContaining({ grantId: 'deploy' }) },
      expect.objectContaining({
        type: 'tool.approval_decided',
        toolCallId: 'deploy_prod',
        approved: true,
        grantId: 'deploy',
        by: 'dashboard token holder',
        via: 'dashboard',
      }),
    ]);
  });

  test("approve with edited arguments: an edit the tool's schema refuses is a 409 with the turn's reason and nothing runs; a valid one runs, recorded as the dashboard token holder's", async () => {
    const { turnId, handle } = await start('approval', 'api-edit');
    await waitForApproval(turnId);
    const approve = (body: Record<string, unknown>) =>
      api(`/api/turns/${turnId}/calls/deploy_prod/approve`, {
        method: 'POST',
        headers: { ...bearer, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const refused = await approve({ input: { target: 42 } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(
      new RegExp(
        `^cannot approve deploy_prod of turn ${turnId}: the edited arguments do not match deploy's schema: .*target.*; nothing ran, the call still waits$`,
      ),
    );
    // Still waiting, never started, and the page has the schema to edit against.
    const waiting = turnResponseSchema.parse((await api(`/api/turns/${turnId}`)).body);
    expect(waiting.state).toMatchObject({
      phase: 'awaiting-approval',
      calls: [
        expect.objectContaining({
          toolCallId: 'deploy_prod',
          phase: 'awaiting-approval',
          attempts: 0,
          approval: expect.objectContaining({
            inputSchema: expect.objectContaining({ required: ['target'] }),
          }),
        }),
      ],
    });

    const approved = await approve({ input: { target: 'staging' }, reason: 'prod is frozen' });
    expect(approved).toMatchObject({
      status: 200,
      body: {
        turnId,
        toolCallId: 'deploy_prod',
        decision: 'approve',
        approved: true,
        input: { target: 'staging' },
        reason: 'prod is frozen',
        by: 'dashboard token holder',
        via: 'dashboard',
      },
    });
    const result = await handle.result();
    expect(result.outputs).toEqual([
      expect.objectContaining({
        toolCallId: 'deploy_prod',
        status: 'ok',
        content: 'deployed staging',
        ranWith: { input: { target: 'staging' }, by: 'dashboard token holder' },
      }),
    ]);
    // The timeline's feed has the one decision taken (the refused edit recorded nothing), with who and how.
    const stream = await readSse({ url: `${dashboard.url}/api/turns/${turnId}/events` });
    const decided = stream.events
      .map((e) => (e.data as { entry?: { type: string } }).entry)
      .filter((entry) => entry?.type === 'tool.approval_decided');
    expect(decided).toEqual([
      expect.objectContaining({
        approved: true,
        input: { target: 'staging' },
        reason: 'prod is frozen',
        by: 'dashboard token holder',
        via: 'dashboard',
        at: expect.any(Number),
      }),
    ]);
  });

  test("respond: the call does not run and the text is its output; behind an auth proxy the approver is its identity header's user, and a decision without the header is a 403 that changes nothing", async () => {
    const { turnId, handle } = await start('approval', 'api-respond');
    const proxied = await startTestDashboard({
      taskQueue,
      options: { token, identityHeader: 'X-Forwarded-User' },
    });
    try {
      await waitForApproval(turnId);
      const respond = async (headers: Record<string, string>) => {
        const response = await fetch(`${proxied.url}/api/turns/${turnId}/calls/deploy_prod/respond`, {
          method: 'POST',
          headers: { ...bearer, 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ output: 'deployed prod by hand', reason: 'the pipeline is down' }),
        });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      for (const headers of <Record<string, string>[]>[{}, { 'x-forwarded-user': '  ' }]) {
        const anonymous = await respond(headers);
        expect(anonymous.status).toBe(403);
        expect(anonymous.body.error).toMatch(/from the x-forwarded-user header.*this request has none/);
      }
      expect((await dashboard.client.attach(turnId).state()).phase).toBe('awaiting-approval');

      const answered = await respond({ 'x-forwarded-user': 'alice@example.com' });
      expect(answered).toMatchObject({
        status: 200,
        body: {
          decision: 'respond',
          approved: false,
          output: 'deployed prod by hand',
          by: 'alice@example.com',
          via: 'dashboard',
        },
      });
      const result = await handle.result();
      expect(result.outputs).toEqual([
        expect.objectContaining({
          toolCallId: 'deploy_prod',
          status: 'ok',
          content: 'deployed prod by hand',
          answeredBy: 'alice@example.com',
          attempts: 0,
        }),
      ]);
    } finally {
      await proxied.close();
    }
  });

  test('reject: the call gets an error output the model reads; a second decision is a 409', async () => {
    const { turnId, handle } = await start('approval', 'api-reject');
    await waitForApproval(turnId);
    const rejected = await api(`/api/turns/${turnId}/calls/deploy_prod/reject`, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'not on a Friday' }),
    });
    expect(rejected.status).toBe(200);
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', text: 'The deploy was rejected.' });
    expect(result.outputs).toEqual([expect.objectContaining({ toolCallId: 'deploy_prod', status: 'error' })]);
    const again = await api(`/api/turns/${turnId}/calls/deploy_prod/approve`, {
      method: 'POST',
      headers: bearer,
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/already ended/);
  });

  test('cancel: the turn ends cancelled, its running call interrupted; cancelling again is a 409', async () => {
    const { turnId, handle } = await start('slow', 'api-cancel');
    await pollFor('the wait call to run', async () => {
      const { body } = await api(`/api/turns/${turnId}`);
      const calls = (body.state as { calls?: { phase: string }[] } | undefined)?.calls ?? [];
      return calls.some((c) => c.phase === 'running') ? true : undefined;
    });
    const cancelled = await api(`/api/turns/${turnId}/cancel`, { method: 'POST', headers: bearer });
    expect(cancelled).toMatchObject({ status: 202, body: { turnId, cancelRequested: true } });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'cancelled' });
    expect(result.outputs).toEqual([
      expect.objectContaining({ toolCallId: 'wait_long', status: 'interrupted' }),
    ]);
    const again = await api(`/api/turns/${turnId}/cancel`, { method: 'POST', headers: bearer });
    expect(again).toMatchObject({ status: 409, body: { error: expect.stringMatching(/already ended/) } });
  });
});

describe('fork', () => {
  test("POST /api/turns/:id/fork starts a turn from after the first response (afterResponse: 0) of a finished one, with its model: the fork completes without running its calls again, the message in its transcript; a point the turn does not have is a 400 in the fork's words, a running source a 409", async () => {
    const source = await start('quick', 'api-fork-src');
    await source.handle.result();
    const fork = (body: unknown, from = source.turnId) =>
      api(`/api/turns/${encodeURIComponent(from)}/fork`, {
        method: 'POST',
        headers: { ...bearer, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const forked = await fork({ at: { afterResponse: 0 }, message: 'and then?' });
    expect(forked).toMatchObject({
      status: 201,
      body: { from: source.turnId, at: { afterResponse: 0 }, model: 'quick' },
    });
    const forkId = String(forked.body.turnId);
    expect(forkId).toMatch(new RegExp(`^${source.turnId}-fork-[0-9a-f]{6}$`));
    const result = await dashboard.client.attach(forkId).result();
    // Its own work is one response and no call: the echoes' outputs are the source's, as recorded.
    expect(result).toMatchObject({
      status: 'completed',
      text: 'Both echoes came back.',
      modelResponses: 1,
      toolCalls: 0,
    });
    expect(result.outputs.map((o) => [o.toolCallId, o.content])).toEqual([
      ['echo_a', 'echo: a'],
      ['echo_b', 'echo: b'],
    ]);
    expect(result.transcript.map((m) => m.role)).toEqual(['assistant', 'tool', 'user', 'assistant']);
    expect(result.transcript[2]).toEqual({ role: 'user', content: 'and then?' });

    const past = await fork({ at: { afterResponse: 7 } });
    expect(past).toMatchObject({
      status: 400,
      body: { error: `cannot fork turn ${source.turnId}: the turn has no response 7 to fork after` },
    });
    const waiting = await start('approval', 'api-fork-running');
    try {
      const running = await fork({ at: { afterResponse: 0 } }, waiting.turnId);
      expect(running.status).toBe(409);
      expect(running.body.error).toContain(`turn ${waiting.turnId} is still running`);
    } finally {
      await waiting.handle.cancel();
    }
  });
});

describe('who may act', () => {
  test('without the token, or with a wrong one, an action is a 401 and the turn is unchanged', async () => {
    const { turnId, handle } = await start('approval', 'api-401');
    await waitForApproval(turnId);
    for (const headers of <Record<string, string>[]>[
      {},
      { authorization: 'Bearer wrong-token-wrong-token-wrong' },
      { authorization: token },
    ]) {
      for (const route of [`/api/turns/${turnId}/calls/deploy_prod/approve`, `/api/turns/${turnId}/cancel`]) {
        const refused = await api(route, { method: 'POST', headers });
        expect(refused.status).toBe(401);
        expect(refused.body.error).toMatch(/DURABLE_TURNS_DASHBOARD_TOKEN/);
      }
    }
    const after = turnResponseSchema.parse((await api(`/api/turns/${turnId}`)).body);
    expect(after).toMatchObject({ running: true, state: { phase: 'awaiting-approval' } });
    await handle.cancel();
  });

  test('an action without the token is refused before anything is looked up: a 401 even for an unknown turn or a malformed body', async () => {
    const unknown = await api('/api/turns/no-such-turn/cancel', { method: 'POST' });
    expect(unknown.status).toBe(401);
    const malformed = await api('/api/turns/no-such-turn/calls/c1/approve', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(malformed.status).toBe(401);
    // With the token, the same requests are looked at: the turn does not exist, the body does not parse.
    expect((await api('/api/turns/no-such-turn/cancel', { method: 'POST', headers: bearer })).status).toBe(
      404,
    );
    expect(
      (
        await api('/api/turns/no-such-turn/calls/c1/approve', {
          method: 'POST',
          headers: { ...bearer, 'content-type': 'application/json' },
          body: '{not json',
        })
      ).status,
    ).toBe(400);
  });

  test('a cookie session acts only with the CSRF header and from its own origin', async () => {
    const { turnId, handle } = await start('approval', 'api-csrf');
    await waitForApproval(turnId);
    const wrongLogin = await api('/api/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: 'not-the-token' }),
    });
    expect(wrongLogin.status).toBe(401);
    const login = await api('/api/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    expect(login.status).toBe(200);
    const setCookies = login.headers.getSetCookie();
    const session = setCookies.find((c) => c.startsWith('dt_session='));
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/Secure/);
    expect(session).toMatch(/SameSite=Strict/);
    const cookie = setCookies.map((c) => c.split(';')[0]).join('; ');
    const csrfToken = String(login.body.csrfToken);
    const approve = `/api/turns/${turnId}/calls/deploy_prod/approve`;
    const own = new URL(dashboard.url).host;

    expect((await api(approve, { method: 'POST', headers: { cookie } })).status).toBe(403);
    expect(
      (
        await api(approve, {
          method: 'POST',
          headers: { cookie, 'x-csrf-token': 'guessed', origin: `http://${own}` },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await api(approve, {
          method: 'POST',
          headers: { cookie, 'x-csrf-token': csrfToken, origin: 'http://evil.example' },
        })
      ).status,
    ).toBe(403);
    expect((await api(`/api/turns/${turnId}`, { headers: { cookie } })).body).toMatchObject({
      running: true,
      state: { phase: 'awaiting-approval' },
    });

    const session2 = await api('/api/session', { headers: { cookie } });
    expect(session2.body).toMatchObject({ authenticated: true, via: 'cookie', csrfToken });
    const approved = await api(approve, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrfToken, origin: `http://${own}` },
    });
    expect(approved.status).toBe(200);
    expect(await handle.result()).toMatchObject({ status: 'completed', text: 'Deployed to prod.' });
  });
});

describe('conversations', () => {
  const conversations = () => new ConversationClient(dashboard.client);
  const conversationPath = (id: string) => `/api/conversations/${encodeURIComponent(id)}`;

  /** A conversation begun as code begins one (the dashboard sends only to one that exists). */
  async function begin(model: string, label: string): Promise<string> {
    const conversationId = uniqueTurnId(label);
    await conversations().send(conversationId, `${label}: first`, {
      messageId: `${conversationId}-first`,
      turn: { model },
    });
    return conversationId;
  }

  const send = (
    conversationId: string,
    body: Record<string, unknown>,
    headers: Record<string, string> = bearer,
  ) =>
    api(`${conversationPath(conversationId)}/messages`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  test('GET /api/conversations lists them by id prefix, pages by cursor, and filters open from closed', async () => {
    const prefix = uniqueTurnId('conv-list');
    const ids = [`${prefix}-a`, `${prefix}-b`];
    for (const id of ids)
      await conversations().send(id, 'hello', { messageId: `${id}-1`, turn: { model: 'quick' } });
    const listed = (query: string) =>
      api(`/api/conversations?search=${encodeURIComponent(prefix)}&${query}`).then(({ status, body }) => ({
        status,
        page: conversationListResponseSchema.parse(body),
      }));
    const first = await pollFor('both conversations in Visibility', async () => {
      const all = await listed('limit=10');
      return all.page.conversations.length === 2 ? listed('limit=1') : undefined;
    });
    expect(first.status).toBe(200);
    expect(first.page.conversations).toEqual([
      { conversationId: expect.stringMatching(prefix), status: 'open', startTime: expect.any(String) },
    ]);
    const second = await listed(`limit=1&cursor=${first.page.nextCursor}`);
    const paged = [...first.page.conversations, ...second.page.conversations].map((c) => c.conversationId);
    expect(paged.sort()).toEqual(ids);

    await conversations().close(ids[0] ?? '');
    const closed = await pollFor('the closed one listed as closed', async () => {
      const { page } = await listed('status=closed');
      return page.conversations.length > 0 ? page.conversations : undefined;
    });
    expect(closed).toEqual([expect.objectContaining({ conversationId: ids[0], status: 'closed' })]);
    expect((await listed('status=open')).page.conversations.map((c) => c.conversationId)).toEqual([ids[1]]);
    expect((await api('/api/conversations?status=ended')).body.error).toMatch(/status/);
  });

  test('GET /api/conversations/:id has its queue, its turns in order with their status, and the transcript of the ended ones; an unknown one is a 404', async () => {
    const conversationId = await begin('quick', 'conv-show');
    await conversations().turn(conversationId, 1).result();
    // The conversation hears of the end just after the turn's result.
    const shown = await pollFor('turn 1 ended in the conversation', async () => {
      const { status, body } = await api(conversationPath(conversationId));
      const view = conversationResponseSchema.parse(body);
      return status === 200 && !view.state.running ? view : undefined;
    });
    expect(shown).toMatchObject({
      conversationId,
      state: { turnCount: 1, closed: false, next: [], queue: [] },
      turns: [{ turnId: `${conversationId}#1`, number: 1, status: 'completed' }],
      webUiUrl: `http://127.0.0.1:8233/namespaces/${dashboard.namespace}/workflows/${encodeURIComponent(`conversation:${conversationId}`)}`,
    });
    const transcript = shown.transcript ?? [];
    expect(transcript[0]).toEqual({ role: 'user', content: 'conv-show: first' });
    expect(transcript.at(-1)).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: 'Both echoes came back.' }],
    });
    const calls = transcript.flatMap((m) => (m.role === 'assistant' ? m.content : []));
    expect(
      calls.filter((p) => p.type === 'tool-call').map((p) => p.type === 'tool-call' && p.toolName),
    ).toEqual(['echo', 'echo']);

    const missing = await api(conversationPath('no-such-conversation'));
    expect(missing).toMatchObject({
      status: 404,
      body: {
        error: expect.stringContaining(
          `no conversation no-such-conversation in namespace ${dashboard.namespace}`,
        ),
      },
    });
    expect((await api(conversationPath('not a conversation id'))).status).toBe(400);
  });

  test('sending is an action: without the token a 401 that records nothing; with it, an unknown conversation is a 404 and a blank message a 400', async () => {
    const conversationId = await begin('quick', 'conv-refused');
    for (const headers of <Record<string, string>[]>[
      {},
      { authorization: 'Bearer wrong-token-wrong-token-wrong' },
    ]) {
      const refused = await send(conversationId, { text: 'let me in' }, headers);
      expect(refused.status).toBe(401);
    }
    const { receipts } = await conversations().state(conversationId);
    expect(receipts.map((r) => r.messageId)).toEqual([`${conversationId}-first`]);
    const unknown = await send('no-such-conversation', { text: 'hello?' });
    expect(unknown).toMatchObject({
      status: 404,
      body: { error: expect.stringContaining('no conversation') },
    });
    const blank = await send(conversationId, { text: '   ' });
    expect(blank).toMatchObject({ status: 400, body: { error: expect.stringMatching(/text/) } });
  });

  test('a message steered into the running turn is read by it, one enqueued runs as the next turn, as their receipts say; a retried send is the same message; reject while busy and sending to a closed one are 409s', async () => {
    const conversationId = await begin('approval', 'conv-send');
    const [turn1, turn2] = [`${conversationId}#1`, `${conversationId}#2`];
    await waitForApproval(turn1);
    const steered = await send(conversationId, {
      text: 'staging too',
      policy: 'steer',
      messageId: 'm-steer',
    });
    expect(steered).toMatchObject({
      status: 202,
      body: { messageId: 'm-steer', status: 'steered', turnId: turn1 },
    });
    const queued = { text: 'then report', policy: 'enqueue', messageId: 'm-queue' };
    expect(await send(conversationId, queued)).toMatchObject({
      status: 202,
      body: { messageId: 'm-queue', status: 'queued', ahead: 1 },
    });
    expect((await send(conversationId, queued)).body).toEqual({
      messageId: 'm-queue',
      status: 'queued',
      ahead: 1,
    });
    const busy = await send(conversationId, { text: 'now', policy: 'reject' });
    expect(busy).toMatchObject({
      status: 409,
      body: { error: expect.stringContaining(`is running turn ${turn1}`) },
    });

    await dashboard.client.attach(turn1).approve('deploy_prod');
    const result = await dashboard.client.attach(turn1).result();
    expect(result.events).toContainEqual(
      expect.objectContaining({
        type: 'user.steered',
        messages: [expect.objectContaining({ messageId: 'm-steer' })],
      }),
    );
    const shown = await pollFor('turn 2 running', async () => {
      const view = conversationResponseSchema.parse((await api(conversationPath(conversationId))).body);
      return view.state.running?.turnId === turn2 ? view : undefined;
    });
    expect(shown.turns).toEqual([
      { turnId: turn1, number: 1, status: 'completed' },
      { turnId: turn2, number: 2, status: 'running' },
    ]);
    expect(shown.transcript).toContainEqual({ role: 'user', content: 'staging too' });
    expect(shown.state.running?.messages).toEqual([expect.objectContaining({ messageId: 'm-queue' })]);

    await conversations().close(conversationId);
    const closed = await send(conversationId, { text: 'hello again' });
    expect(closed).toMatchObject({ status: 409, body: { error: expect.stringContaining('is closed') } });
    await dashboard.client.attach(turn2).cancel();
  });
});

describe('durable-turns dashboard', () => {
  test('serves the API for the namespace it connects to until Ctrl-C; without a token it is read-only', async () => {
    const port = await freePort();
    const served = new CliProcess({
      args: ['dashboard', '--json', '--port', String(port)],
      env: { DURABLE_TURNS_TASK_QUEUE: taskQueue, DURABLE_TURNS_DASHBOARD_TOKEN: '' },
    });
    try {
      const [line = ''] = await served.waitFor({
        pattern: /\{"dashboard":"ready".*\}/,
        what: 'the dashboard was ready',
      });
      expect(JSON.parse(line)).toMatchObject({
        url: `http://127.0.0.1:${port}`,
        namespace: dashboard.namespace,
        actions: false,
      });
      const listed = await fetch(`http://127.0.0.1:${port}/api/turns?limit=1`);
      expect(listed.status).toBe(200);
      const session = (await (await fetch(`http://127.0.0.1:${port}/api/session`)).json()) as Record<
        string,
        unknown
      >;
      expect(session).toEqual({ authenticated: false, via: 'loopback', actionsEnabled: false });
      served.kill('SIGINT');
      expect((await served.done).code).toBe(0);
    } finally {
      await served.stop();
    }
  });
});

describe('beyond loopback', () => {
  test('it refuses to start without a token, and without TLS unless behind a TLS proxy', async () => {
    const upstream = { address: 'unused', namespace: 'default' };
    await expect(
      startDashboard({ client: dashboard.client, upstream, options: { host: '0.0.0.0', port: 0 } }),
    ).rejects.toThrow(/beyond loopback, without a token.*DURABLE_TURNS_DASHBOARD_TOKEN/);
    await expect(
      startDashboard({ client: dashboard.client, upstream, options: { host: '0.0.0.0', port: 0, token } }),
    ).rejects.toThrow(/--tls-cert and --tls-key, or --behind-tls-proxy/);
    const run = await cli({
      args: ['dashboard', '--listen', '0.0.0.0'],
      env: { DURABLE_TURNS_DASHBOARD_TOKEN: '' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('beyond loopback, without a token');
  });

  test('every read needs the token there, pages included; with it, it serves (here over TLS)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dashboard-tls-'));
    try {
      const [cert, key] = [path.join(dir, 'cert.pem'), path.join(dir, 'key.pem')];
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
          '-keyout',
          key,
          '-out',
          cert,
        ],
        { stdio: 'ignore' },
      );
      const exposed = await startDashboard({
        client: dashboard.client,
        upstream: { address: 'suite', namespace: dashboard.namespace },
        options: { host: '0.0.0.0', port: 0, token, tls: { cert, key } },
      });
      try {
        const ca = readFileSync(cert);
        const get = (route: string, headers: Record<string, string> = {}) =>
          new Promise<{ status: number; body: string }>((resolve, reject) => {
            const req = httpsRequest(
              { host: '127.0.0.1', port: exposed.port, path: route, ca, headers },
              (res) => {
                let body = '';
                res.on('data', (chunk: Buffer) => {
                  body += chunk.toString('utf8');
                });
                res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
              },
            );
            req.on('error', reject);
            req.end();
          });
        expect(exposed.url).toMatch(/^https:/);
        for (const route of ['/api/turns', '/api/health', '/', '/index.html', '/nowhere'])
          expect({ route, status: (await get(route)).status }).toEqual({ route, status: 401 });
        expect((await get('/login')).status).toBe(200);
        const listed = await get('/api/turns?limit=1', bearer);
        expect(listed.status).toBe(200);
        bodies.push(listed.body);
      } finally {
        await exposed.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
