import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ConversationClient } from '../client/conversation-client';
import type { StartTurnArgs } from '../client/turn-client';
import { openGate as openTurnGate, streamedWords } from '../test/agents/operator-agent';
import { CliProcess } from '../test/cli/support/cli-process';
import { uniqueTurnId } from '../test/conformance/support';
import { startTestDashboard } from '../test/dashboard/dashboard-fixture';
import { launchChromium } from '../test/dashboard/launch-chromium';
import { pollFor } from '../test/temporal/support/poll';

/**
 * The dashboard's pages in headless Chromium, against the suite's Temporal server, a real worker
 * process (`durable-turns worker` for test/agents/operator-agent.ts) and a real dashboard:
 * what an operator sees and does. Screenshots land in test-artifacts/dashboard/ (git-ignored).
 */
const taskQueue = `dashboard-pages-${process.pid}`;
const token = 'pages-token-0123456789abcdefghijkl';
const agent = path.join(__dirname, '../test/agents/operator-agent.ts');
const artifacts = path.join(__dirname, '../test-artifacts/dashboard');
const gates = mkdtempSync(path.join(tmpdir(), 'dashboard-gates-'));
/**
 * How long one step of a turn may take to reach the page: a workflow task and an activity on a
 * shared 2-core machine, then the event stream's batching (250 ms). Waits are on the DOM, up to this.
 */
const stepMs = 20_000;
/**
 * The CLI worker reports its tool health every 10 s (the reporter's default) and the dashboard reads
 * the fleet every 2 s: an open circuit reaches the page within both, plus a step.
 */
const healthMs = 10_000 + 2_000 + stepMs;
const widths = { desktop: { width: 1280, height: 900 }, narrow: { width: 390, height: 844 } };

let worker: CliProcess;
let dashboard: Awaited<ReturnType<typeof startTestDashboard>>;
let browser: Browser;
let context: BrowserContext;
let page: Page;

const openGate = (turnId: string, gate: string) => openTurnGate({ folder: gates, turnId, gate });

function start(model: string, label: string, extra: Partial<StartTurnArgs> = {}) {
  const turnId = uniqueTurnId(label);
  return dashboard.client
    .start({
      turnId,
      model,
      input: [{ role: 'user', content: label }],
      conversationId: `conv-ui-${label}`,
      ...extra,
    })
    .then((handle) => ({ turnId, handle }));
}

/** The page's document, typed as far as these tests read it (the test code has no DOM types). */
type PageDocument = { document: { querySelectorAll(selector: string): { length: number } } };

/** Waits until `selector` matches exactly `count` elements (a predicate, not a string: the CSP forbids eval). */
const waitForCount = (selector: string, count: number) =>
  page.waitForFunction(
    ([s, n]) => (globalThis as unknown as PageDocument).document.querySelectorAll(s as string).length === n,
    [selector, count] as const,
  );

const call = (id: string) => page.locator(`[data-call-id="${id}"]`);

/** The page at both widths, full length, as test artifacts. */
async function screenshots(name: string): Promise<void> {
  for (const [width, size] of Object.entries(widths)) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(artifacts, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(widths.desktop);
}

/** Logs in through the login page, as a person does with the URL `durable-turns dev` prints. */
async function logIn(): Promise<void> {
  await page.goto(`${dashboard.url}/login`);
  await page.getByLabel(/Dashboard token/).fill(token);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`${dashboard.url}/`);
  await page.getByText('logged in').waitFor({ timeout: stepMs });
}

/** Opens the turn page and counts the main frame's navigations from there on. */
const openTurn = (turnId: string) => openPage(`#/turns/${turnId}`);

/** Opens a page (`#/…`) and counts the main frame's navigations from there on. */
async function openPage(route: string): Promise<{ navigations: () => number }> {
  let navigations = 0;
  await page.goto(`${dashboard.url}/${route}`);
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) navigations += 1;
  });
  await page.evaluate(() => {
    (globalThis as { sameDocument?: boolean }).sameDocument = true;
  });
  return { navigations: () => navigations };
}

const sameDocument = () => page.evaluate(() => (globalThis as { sameDocument?: boolean }).sameDocument);

/** Clicks a button, then the confirm dialog's button. */
async function confirmAction(button: string, confirm: string): Promise<void> {
  await page.getByRole('button', { name: button, exact: true }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  await dialog.getByRole('button', { name: confirm, exact: true }).click();
}

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true });
  worker = new CliProcess({
    args: ['worker', '--agent', agent, '--json'],
    env: { DURABLE_TURNS_TASK_QUEUE: taskQueue, DURABLE_TURNS_TEST_GATES: gates },
  });
  await worker.waitFor({ pattern: /"worker":"ready"/, what: 'the worker was ready' });
  dashboard = await startTestDashboard({
    taskQueue,
    options: { token, webUiUrl: 'http://127.0.0.1:8233' },
  });
  browser = await launchChromium();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await dashboard?.close();
  worker?.kill('SIGINT');
  await worker?.done;
  rmSync(gates, { recursive: true, force: true });
});
beforeEach(async () => {
  context = await browser.newContext({ viewport: widths.desktop });
  context.setDefaultTimeout(stepMs);
  page = await context.newPage();
});
afterEach(async () => {
  await context?.close();
});

describe('the turn page', () => {
  test("a running turn's calls appear and finish live, in waves, without a reload", async () => {
    // The step's output (400 characters of padding) is cut to 200 bytes; the budget shows what is left.
    const { turnId, handle } = await start('waves', 'waves', {
      maxOutputBytes: 200,
      budget: { maxToolCalls: 10 },
    });
    const { navigations } = await openTurn(turnId);
    // Wave 1: both gates run together; the step, which must run alone, waits for wave 2.
    await page.locator('[data-call-id="gate_a"][data-outcome="running"]').waitFor();
    await page.locator('[data-call-id="gate_b"][data-outcome="running"]').waitFor();
    await page.locator('[data-call-id="step_c"][data-outcome="pending"]').waitFor();
    const waveOf = async (id: string) => call(id).getAttribute('data-wave');
    const waves = async () => Promise.all(['gate_a', 'gate_b', 'step_c'].map(waveOf));
    expect(await waves()).toEqual(['0', '0', '1']);
    await expect(page.locator('.response-text').first().textContent()).resolves.toBe(
      'Two gates, then a step.',
    );
    const spent = Number(await page.locator('[data-spent-calls]').getAttribute('data-spent-calls'));
    expect(await page.locator('[data-budget-left]').textContent()).toBe(`${10 - spent} tool calls`);
    await screenshots('turn-running');

    // The second call of the wave finishes first: it says so (not "pending") while the first runs on,
    // though its output is recorded only after the first's (outputs go in batch order).
    openGate(turnId, 'b');
    await page.locator('[data-call-id="gate_b"][data-outcome="ok"]').waitFor();
    expect(await call('gate_a').getAttribute('data-outcome')).toBe('running');
    openGate(turnId, 'a');
    await page.locator('[data-call-id="gate_a"][data-outcome="ok"]').waitFor();
    await page.locator('[data-call-id="step_c"][data-outcome="ok"]').waitFor();
    await page.locator('[data-turn-status="completed"]').waitFor();
    await page.getByText('All three done.').first().waitFor();
    expect(await handle.result()).toMatchObject({ status: 'completed' });

    // Each attempt is drawn: the step failed once, then its retry succeeded.
    expect(await call('step_c').locator('[data-attempt-outcome="error"]').count()).toBe(1);
    expect(await call('step_c').locator('[data-attempt-outcome="ok"]').count()).toBe(1);
    // Its output opens on demand, marked truncated (cut to maxOutputBytes); a short one is not.
    await call('step_c')
      .getByText(/^Output: ok — truncated/)
      .click();
    await call('step_c')
      .getByText(/cut to fit/)
      .waitFor();
    expect(await call('step_c').locator('pre').textContent()).toContain('stepped');
    expect(
      await call('gate_a')
        .getByText(/^Output: ok/)
        .textContent(),
    ).not.toMatch(/truncated/);
    // A file the tool returned shows as its kind, name and size, not its bytes.
    await call('gate_a')
      .getByText(/^Output: ok/)
      .click();
    expect(await call('gate_a').locator('.files li').textContent()).toBe('[image/png gate-a.png, 1.2 KB]');
    expect(await page.getByRole('link', { name: 'Open in the Temporal Web UI' }).getAttribute('href')).toBe(
      `http://127.0.0.1:8233/namespaces/${dashboard.namespace}/workflows/${turnId}`,
    );
    expect(navigations()).toBe(0);
    expect(await sameDocument()).toBe(true);
    await screenshots('turn-completed');

    // A viewer who comes after the end sees the same waves, replayed from the stream (no state
    // event shows a finished turn's batch: they come with the entries).
    await page.reload();
    await page.locator('[data-turn-status="completed"]').waitFor();
    await page.locator('[data-call-id="step_c"][data-outcome="ok"]').waitFor();
    expect(await waves()).toEqual(['0', '0', '1']);
    expect(await page.getByRole('heading', { name: 'Wave 2' }).count()).toBe(1);
  });

  test('a response shows its text as it streams, then as recorded', async () => {
    const { turnId, handle } = await start('streaming', 'stream');
    await openTurn(turnId);
    // The model streams half its words and holds: that part is on the page while the response streams.
    await page.waitForFunction(() => {
      const text = (
        globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }
      ).document.querySelector('[data-response="0"][data-streaming="true"] .response-text')?.textContent;
      return text?.startsWith('one ') && !text.includes('fifteen');
    });
    // Its bar runs while it streams.
    expect(await page.locator('[data-response-track="0"]').getAttribute('aria-label')).toMatch(
      /^response 1: streaming for /,
    );
    openGate(turnId, 'stream-rest');
    await page
      .locator('[data-response="0"][data-streaming="false"] .response-text')
      .getByText(streamedWords.join(' '))
      .waitFor();
    expect(await handle.result()).toMatchObject({ status: 'completed' });
  });
});

describe('actions from the page', () => {
  test('without logging in, approving is refused (401) and the call still waits; logged in through the login page, approving runs it and the turn completes', async () => {
    const { turnId, handle } = await start('approval', 'approve');
    await openTurn(turnId);
    await page.locator('[data-call-id="deploy_prod"][data-outcome="waiting"]').waitFor();
    await screenshots('turn-waiting');
    // Not approving blind: the box and its confirm dialog show what the call runs with, and the
    // page shows what the turn was asked.
    expect(JSON.parse((await call('deploy_prod').locator('[data-call-args]').textContent()) ?? '')).toEqual({
      target: 'prod',
    });
    expect(await page.locator('.turn-input [data-role="user"] pre').textContent()).toBe('approve');
    await call('deploy_prod').getByRole('button', { name: 'Approve', exact: true }).click();
    expect(
      JSON.parse((await page.getByRole('dialog').locator('[data-confirm-args]').textContent()) ?? ''),
    ).toEqual({
      target: 'prod',
    });
    // Approving is not styled as the dangerous choice (rejecting and cancelling are).
    expect(
      await page.getByRole('dialog').getByRole('button', { name: 'Approve' }).getAttribute('class'),
    ).toBe('primary');
    await page.getByRole('dialog').getByRole('button', { name: 'Go back' }).click();
    await confirmAction('Approve', 'Approve');
    await page.locator('[data-action-result="401"]').waitFor();
    expect(await page.locator('[data-action-result="401"]').textContent()).toMatch(
      /DURABLE_TURNS_DASHBOARD_TOKEN/,
    );
    const state = await dashboard.client.attach(turnId).state();
    expect(state.calls).toEqual([
      expect.objectContaining({ toolCallId: 'deploy_prod', phase: 'awaiting-approval' }),
    ]);

    await logIn();
    const { navigations } = await openTurn(turnId);
    await page.getByLabel(/Reason/).fill('change ticket 42');
    await confirmAction('Approve', 'Approve');
    await page.locator('[data-action-result="ok"]').waitFor();
    await page.locator('[data-call-id="deploy_prod"][data-outcome="ok"]').waitFor();
    await call('deploy_prod')
      .getByText('Approved by dashboard token holder via the dashboard: change ticket 42')
      .waitFor();
    await page.locator('[data-turn-status="completed"]').waitFor();
    expect(await handle.result()).toMatchObject({ status: 'completed', text: 'Deployed to prod.' });
    expect(navigations()).toBe(0);
    // The approved call's bar, which began late, stays inside its track; the tracks have a time scale.
    type Box = { getBoundingClientRect(): { left: number; right: number }; children: ArrayLike<Box> };
    const outside = await page
      .locator('.track')
      .evaluateAll(
        (tracks: Box[]) =>
          tracks.flatMap((track) =>
            Array.from(track.children).filter(
              (segment) =>
                segment.getBoundingClientRect().left < track.getBoundingClientRect().left - 0.5 ||
                segment.getBoundingClientRect().right > track.getBoundingClientRect().right + 0.5,
            ),
          ).length,
      );
    expect(outside).toBe(0);
    // Each model response has its bar on the same scale: the first ends before the approved call
    // starts, the second starts after it (a bar is drawn at least 0.8 % wide, so a call of a few
    // milliseconds is drawn past its end: the second may start inside the call's drawn bar).
    const edges = async (selector: string) =>
      page.locator(`${selector} .segment`).evaluate((segment: Box) => segment.getBoundingClientRect());
    const [first, deploy, second] = [
      await edges('[data-response-track="0"]'),
      await edges('[data-call-id="deploy_prod"] .track'),
      await edges('[data-response-track="1"]'),
    ];
    expect(first.right).toBeLessThanOrEqual(deploy.left + 1);
    expect(second.left).toBeGreaterThanOrEqual(deploy.left);
    expect(await page.locator('[data-response-track="1"]').getAttribute('aria-label')).toMatch(
      /^response 2: took [\d.]+ (ms|s)$/,
    );
    expect(await page.locator('.time-axis span').allTextContents()).toEqual([
      '0',
      expect.stringMatching(/ms|s/),
      expect.stringMatching(/ms|s/),
      expect.stringMatching(/ms|s/),
      expect.stringMatching(/ms|s/),
    ]);
    // A finished turn says when it started and ended and how long it took, in the CLI's format.
    const utc = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/;
    await page.locator('[data-ended]').waitFor();
    expect(await page.locator('[data-started]').textContent()).toMatch(utc);
    expect(await page.locator('[data-ended]').textContent()).toMatch(utc);
    expect(await page.locator('[data-took]').textContent()).toMatch(/^[\d.]+ (ms|s)$/);

    // Logging out ends the login on the dashboard: the page offers a login again, and the session's
    // cookie, as the browser held it, is refused from then on.
    const [held] = (await page.context().cookies()).filter((c) => c.name === 'dt_session');
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByText('log in to act').waitFor();
    const replayed = await fetch(`${dashboard.url}/api/session`, {
      headers: { cookie: `dt_session=${held?.value}` },
    });
    expect(await replayed.json()).toMatchObject({ authenticated: false });
  });

  test('a grant shows in the Grants panel until revoked there; reject with a reason: the call shows an explicit error output, the model reads it', async () => {
    const { turnId, handle } = await start('approval', 'reject');
    await logIn();
    await openTurn(turnId);
    await page.locator('[data-call-id="deploy_prod"][data-outcome="waiting"]').waitFor();
    // A grant that does not cover the waiting call (it deploys to prod): listed, with who gave it.
    await dashboard.client.attach(turnId).grant({
      grantId: 'staging-only',
      toolName: 'deploy',
      match: [{ path: 'target', equals: 'staging' }],
      by: 'carol',
      via: 'cli',
    });
    const grant = page.locator('[data-grants] [data-grant-id="staging-only"]');
    await grant.waitFor();
    expect(await grant.textContent()).toMatch(
      /^staging-only: deploy calls where target = "staging" run without asking — by carol via the CLI, \d{4}-/,
    );
    await confirmAction('Revoke', 'Revoke');
    await page.locator('[data-grants]').waitFor({ state: 'detached' });
    await page
      .locator('[data-entry-type="approval.revoked"]')
      .getByText('Grant staging-only revoked by dashboard token holder via the dashboard')
      .waitFor();
    expect((await dashboard.client.attach(turnId).state()).grants).toBeUndefined();

    await page.getByLabel(/Reason/).fill('not on a Friday');
    await confirmAction('Reject', 'Reject');
    await page.locator('[data-call-id="deploy_prod"][data-outcome="error"]').waitFor();
    await call('deploy_prod')
      .getByText('Rejected by dashboard token holder via the dashboard: not on a Friday')
      .waitFor();
    await call('deploy_prod')
      .getByText(/^Output: error/)
      .click();
    await call('deploy_prod')
      .locator('pre')
      .getByText(/not on a Friday/)
      .waitFor();
    await page.locator('[data-turn-status="completed"]').waitFor();
    await page.getByText('The deploy was rejected.').first().waitFor();
    expect((await handle.result()).outputs).toEqual([
      expect.objectContaining({ toolCallId: 'deploy_prod', status: 'error' }),
    ]);
    await screenshots('turn-rejected');
  });

  test("edit arguments: an edit the tool's schema refuses is shown beside them and the call waits on; a valid one runs with them, and the timeline says who approved it and with what", async () => {
    const { turnId, handle } = await start('approval', 'edit');
    await logIn();
    await openTurn(turnId);
    const deploy = call('deploy_prod');
    await page.locator('[data-call-id="deploy_prod"][data-outcome="waiting"]').waitFor();
    await deploy.getByRole('button', { name: 'Edit arguments' }).click();
    // The model's arguments to start from, and what the tool requires.
    const args = deploy.getByLabel(/^Arguments \(JSON\)/);
    expect(JSON.parse(await args.inputValue())).toEqual({ target: 'prod' });
    expect(await deploy.locator('[data-required]').textContent()).toBe('Required: target (string)');
    const approveWith = async (edited: string) => {
      await args.fill(edited);
      await deploy.getByRole('button', { name: 'Approve with these arguments' }).click();
      const dialog = page.getByRole('dialog');
      expect(JSON.parse((await dialog.locator('[data-confirm-args]').textContent()) ?? '')).toEqual(
        JSON.parse(edited),
      );
      await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
    };

    await approveWith('{ "target": 42 }');
    await deploy
      .locator('[data-edit-problem]')
      .getByText(/do not match deploy's schema: .*target.*the call still waits/)
      .waitFor();
    expect((await dashboard.client.attach(turnId).state()).calls).toEqual([
      expect.objectContaining({ toolCallId: 'deploy_prod', phase: 'awaiting-approval', attempts: 0 }),
    ]);
    await screenshots('turn-edit-refused');

    await approveWith('{ "target": "staging" }');
    await page.locator('[data-call-id="deploy_prod"][data-outcome="ok"]').waitFor();
    await deploy
      .getByText('Approved by dashboard token holder via the dashboard, with edited arguments')
      .waitFor();
    expect(JSON.parse((await deploy.locator('[data-decision-input]').textContent()) ?? '')).toEqual({
      target: 'staging',
    });
    await deploy.getByText(/^Output: ok, 1 attempt — ran with edited arguments$/).click();
    expect(await deploy.locator('[data-ran-with]').textContent()).toMatch(/edited by dashboard token holder/);
    expect(await deploy.locator('[data-output-content]').textContent()).toBe('deployed staging');
    await page.locator('[data-turn-status="completed"]').waitFor();
    expect((await handle.result()).outputs).toEqual([
      expect.objectContaining({ toolCallId: 'deploy_prod', content: 'deployed staging' }),
    ]);
    await screenshots('turn-edited');
  });

  test('going back in the confirm dialog sends nothing; cancel confirmed ends the turn cancelled, its running call interrupted', async () => {
    const { turnId, handle } = await start('slow', 'cancel');
    await logIn();
    const { navigations } = await openTurn(turnId);
    await page.locator('[data-call-id="wait_long"][data-outcome="running"]').waitFor();
    await page.getByRole('button', { name: 'Cancel turn' }).click();
    expect(
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel the turn' }).getAttribute('class'),
    ).toBe('danger');
    await page.getByRole('dialog').getByRole('button', { name: 'Go back' }).click();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    expect((await dashboard.client.attach(turnId).state()).status).toBe('running');

    await confirmAction('Cancel turn', 'Cancel the turn');
    await page.locator('[data-turn-status="cancelled"]').waitFor();
    // "cancel requested" was true while the turn ran on; once it has ended, its status says it.
    await page.locator('[data-action-result="ok"]').waitFor({ state: 'detached' });
    await page.locator('[data-call-id="wait_long"][data-outcome="interrupted"]').waitFor();
    expect(await call('wait_long').locator('[data-attempt-outcome="interrupted"]').count()).toBe(1);
    expect(await handle.result()).toMatchObject({ status: 'cancelled' });
    expect(navigations()).toBe(0);
    await screenshots('turn-cancelled');
  });
});

describe('the turns page', () => {
  test('lists turns live with their status, model, calls, tokens and approval wait, filters them, and pages by "more"', async () => {
    const waiting = await start('approval', 'list-waiting');
    // An id of the longest kind (256 characters) beside it must not push the other columns away.
    const long = await start('approval', `list-long-${'x'.repeat(200)}`.slice(0, 220));
    await page.goto(`${dashboard.url}/#/turns`);
    const row = page.locator(`tr[data-turn-id="${waiting.turnId}"]`);
    // Visibility learns of the wait after the workflow's next task: the list picks it up by itself.
    await row.getByText('waiting', { exact: true }).waitFor();
    const longRow = page.locator(`tr[data-turn-id="${long.turnId}"]`);
    await longRow.waitFor();
    expect(long.turnId.length).toBeGreaterThan(220);
    expect(await longRow.getByRole('link').getAttribute('title')).toBe(long.turnId);
    const viewport = page.viewportSize()?.width ?? 0;
    for (const label of ['Status', 'Tokens', 'Approval']) {
      const box = await longRow.locator(`td[data-label="${label}"]`).boundingBox();
      expect(box && box.x + box.width).toBeLessThanOrEqual(viewport);
    }
    await long.handle.cancel();
    // Its model, calls started and tokens spent, from the turn's search attributes; a running
    // turn's duration counts on.
    const cell = (label: string) => row.locator(`td[data-label="${label}"]`);
    expect(await cell('Model').textContent()).toBe('approval');
    expect(await cell('Calls').textContent()).toBe('0');
    expect(await cell('Tokens').textContent()).toBe('15');
    expect(await cell('Duration').textContent()).toMatch(/^[\d.]+ (ms|s) so far$/);
    await page.getByLabel('Status').selectOption('completed');
    await row.waitFor({ state: 'detached' });
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Waiting for approval').selectOption('true');
    await row.waitFor();
    await page.getByLabel(/Search/).fill(waiting.turnId);
    // The list reads again for the new search: wait until only the one turn is left.
    await waitForCount('tbody tr', 1);
    await row.waitFor();
    await screenshots('turns');
    await row.getByRole('link').click();
    await page.locator('[data-call-id="deploy_prod"]').waitFor();
    await waiting.handle.cancel();

    // Paging: two turns a page (#/turns?limit=2) of four turns in conversations of one prefix;
    // "More turns" adds the next two, none twice.
    const prefix = uniqueTurnId('paged');
    const paged = await Promise.all(
      [1, 2, 3, 4].map((i) => start('approval', `paged-${i}`, { conversationId: `${prefix}-${i}` })),
    );
    // Visibility indexes the starts in its own time, slower on a busy machine: wait for it, so the
    // page's steps below wait for the page alone, not for the server's lag too.
    await pollFor(
      'Visibility lists the four turns',
      async () => {
        const { turns } = await dashboard.client.listPage({ search: prefix, pageSize: 10 });
        return turns.length === paged.length ? turns : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    await page.goto(`${dashboard.url}/#/turns?limit=2`);
    await page.getByLabel(/Search/).fill(prefix);
    await waitForCount('tbody tr', 2);
    await page.getByRole('button', { name: 'More turns' }).click();
    await waitForCount('tbody tr', 4);
    const ids = await page
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-turn-id')));
    expect([...ids].sort()).toEqual(paged.map((p) => p.turnId).sort());
    await Promise.all(paged.map((p) => p.handle.cancel()));
  });
});

describe('conversations', () => {
  const conversations = () => new ConversationClient(dashboard.client);

  test('the conversations page lists them, searched by id; the turns page links a conversation turn to its conversation', async () => {
    const conversationId = uniqueTurnId('conv-ui-list');
    const turnId = `${conversationId}#1`;
    await conversations().send(conversationId, 'hello', {
      messageId: `${conversationId}-1`,
      turn: { model: 'quick' },
    });
    await conversations().turn(conversationId, 1).result();
    // Visibility lists them in its own time: wait for it, so the steps below wait for the page alone.
    await pollFor('Visibility lists the conversation and its turn', async () => {
      const [listed, turns] = await Promise.all([
        conversations().list({ search: conversationId }),
        dashboard.client.listPage({ search: conversationId }),
      ]);
      return listed.conversations.length === 1 && turns.turns[0]?.status === 'completed' ? true : undefined;
    });
    await page.goto(`${dashboard.url}/#/conversations`);
    await page.getByLabel(/Search/).fill(conversationId);
    await waitForCount('tbody tr', 1);
    const row = page.locator(`tr[data-conversation-id="${conversationId}"]`);
    expect(await row.locator('td[data-label="Status"]').textContent()).toBe('open');
    expect(await row.getByRole('link').getAttribute('href')).toBe(
      `#/conversations/${encodeURIComponent(conversationId)}`,
    );
    await screenshots('conversations');

    await page.goto(`${dashboard.url}/#/turns`);
    await page.getByLabel(/Search/).fill(conversationId);
    await page
      .locator(`tr[data-turn-id="${turnId}"] td[data-label="Conversation"]`)
      .getByRole('link', { name: conversationId })
      .click();
    await page.locator(`[data-turn-id="${turnId}"][data-turn-status="completed"]`).waitFor();
    await page
      .locator('.transcript-message[data-role="assistant"]')
      .getByText('Both echoes came back.')
      .waitFor();
  });

  test('a message typed into the box steers the running turn, then starts a turn, then waits in the queue, each shown as it happens without a reload; the turn pages show the steer and the compaction', async () => {
    const conversationId = uniqueTurnId('conv-ui-send');
    const [turn1, turn2] = [`${conversationId}#1`, `${conversationId}#2`];
    // Its turns compact their context past 10 tokens (the approval model's first response has 15):
    // turn 1 has nothing before the message it answers to summarise; turn 2 has turn 1.
    await conversations().send(conversationId, 'deploy please', {
      messageId: `${conversationId}-1`,
      turn: { model: 'approval', compaction: { maxContextTokens: 10 } },
    });
    await logIn();
    const { navigations } = await openPage(`#/conversations/${encodeURIComponent(conversationId)}`);
    const turnRow = (turnId: string, status: string) =>
      page.locator(`[data-turn-id="${turnId}"][data-turn-status="${status}"]`);
    const policy = page.getByLabel('While a turn runs');
    const sendMessage = async (text: string) => {
      await page.getByLabel('Message', { exact: true }).fill(text);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
    };
    await turnRow(turn1, 'running').waitFor();
    await page.locator(`[data-running="${turn1}"]`).waitFor();
    // A turn runs: the box steers into it unless told otherwise.
    expect(await policy.inputValue()).toBe('steer');
    await sendMessage('and staging');
    const steered = page.locator('[data-receipt="steered"]');
    await steered.waitFor();
    expect(await steered.getByRole('link').getAttribute('href')).toBe(`#/turns/${encodeURIComponent(turn1)}`);
    await dashboard.client.attach(turn1).approve('deploy_prod');
    await turnRow(turn1, 'completed').waitFor();
    // The ended turn's transcript, the steered message in it, in the words it was typed.
    await page.locator('.transcript-message[data-role="user"]').getByText('and staging').waitFor();
    await page.locator('.transcript-message').getByText('Deployed to prod.').waitFor();

    // Nothing runs: the message starts the next turn.
    expect(await policy.inputValue()).toBe('enqueue');
    await sendMessage('now report');
    await page.locator('[data-receipt="started"]').getByRole('link', { name: turn2 }).waitFor();
    await turnRow(turn2, 'running').waitFor();
    await policy.selectOption('enqueue');
    await sendMessage('and then rest');
    await page.locator('[data-receipt="queued"]').getByText('Queued: 1 turn ahead of it.').waitFor();
    await page.locator('[data-waiting="queue"]').getByText('and then rest').waitFor();
    expect(navigations()).toBe(0);
    expect(await sameDocument()).toBe(true);
    await screenshots('conversation');
    // What waits is dropped; turn 2 runs on to its end.
    await conversations().close(conversationId);
    await dashboard.client.attach(turn2).approve('deploy_prod');

    // Turn 1's timeline: the steer, and a compaction asked for and given up (the turn had nothing
    // before the message being answered to summarise), each a row of its own.
    await page.locator(`[data-turn-id="${turn1}"]`).getByRole('link').click();
    await page.locator('[data-entry-type="user.steered"]').getByText('and staging').waitFor();
    expect(await page.locator('[data-entry-type="context.compaction_requested"]').textContent()).toMatch(
      /reached the size/,
    );
    expect(await page.locator('[data-entry-type="context.compaction_failed"]').textContent()).toMatch(
      /nothing before the message being answered.*Given up/s,
    );
    await screenshots('turn-steered');
    // Turn 2's: turn 1 was before it, so its context was compacted; the summary opens on demand.
    await page.goto(`${dashboard.url}/#/turns/${encodeURIComponent(turn2)}`);
    const compacted = page.locator('[data-entry-type="context.compacted"]');
    await compacted.getByText(/^Summary/).click();
    await compacted
      .locator('pre')
      .getByText(/^summary of/)
      .waitFor();
  });
});

describe('the health page', () => {
  test('shows the circuit of a tool that keeps failing open, on the tool and on its worker', async () => {
    const { handle } = await start('broken', 'broken');
    await handle.result();
    await page.goto(`${dashboard.url}/#/health`);
    const tool = page.locator('[data-tool="broken"]');
    await tool.locator('[data-circuit-open="true"]').waitFor({ timeout: healthMs });
    expect(await tool.getAttribute('class')).toMatch(/circuit-open/);
    expect(await tool.locator('tr.circuit-open [data-circuit="open"]').count()).toBe(1);
    await page
      .getByRole('alert')
      .getByText(/Circuit open: .*broken/)
      .waitFor();
    // The charts are drawn (canvases by uPlot): the fleet's, and the tool's per worker.
    await page.locator('.chart:not(.chart-small) canvas').waitFor();
    await tool.locator('.chart-small canvas').waitFor();
    await screenshots('health');
  });

  test('the past comes from the fleet health workflow: a dashboard started since draws it too, per tool and per worker', async () => {
    // The worker has reported to its queue's fleet workflow since the suite began; this dashboard
    // process has never read the fleet.
    const second = await startTestDashboard({ taskQueue, options: { token } });
    try {
      const startedAt = Date.now();
      await page.goto(`${second.url}/#/health`);
      const fleet = page.locator('.chart:not(.chart-small)[data-first-at]');
      await fleet.waitFor({ timeout: stepMs });
      expect(Number(await fleet.getAttribute('data-first-at'))).toBeLessThan(startedAt);
      const series = (await fleet.getAttribute('data-series'))?.split(',') ?? [];
      expect(series).toContain('broken');
      // A line's colour comes from its tool's name, not its place: one appearing moves no other.
      // The page's own module, as the page loads it (a string: the test's compiler would rewrite import()).
      const alone = (await page.evaluate(
        `import('/app/health-chart.mjs').then((m) => ${JSON.stringify(series)}.map((name) => m.colourOf(name)))`,
      )) as string[];
      expect((await fleet.getAttribute('data-colours'))?.split(',')).toEqual(alone);
      // Each tool has its own chart, a line per worker that ran it.
      const ranBroken = (await second.client.fleetHealth()).tools
        .find((t) => t.toolName === 'broken')
        ?.workers.map((w) => w.identity)
        .sort();
      const perWorker = page.locator('[data-tool="broken"] .chart-small');
      await perWorker.locator('canvas').waitFor();
      expect(await perWorker.getAttribute('data-series')).toBe(ranBroken?.join(','));
      await screenshots('health-history');
    } finally {
      await second.close();
    }
  });
});
