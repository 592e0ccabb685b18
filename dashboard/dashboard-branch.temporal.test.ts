import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ConversationClient } from '../client/conversation-client';
import { CliProcess } from '../test/cli/support/cli-process';
import { uniqueTurnId } from '../test/conformance/support';
import { startTestDashboard } from '../test/dashboard/dashboard-fixture';
import { launchChromium } from '../test/dashboard/launch-chromium';

/**
 * "Branch after this turn" on a conversation's page in headless Chromium, against the suite's
 * Temporal server, a real worker process (`durable-turns worker` for test/agents/operator-agent.ts)
 * and a real dashboard: the operator branches a conversation and lands on the branch's page.
 */
const taskQueue = `dashboard-branch-${process.pid}`;
const token = 'branch-token-0123456789abcdefghijkl';
const agent = path.join(__dirname, '../test/agents/operator-agent.ts');
/** How long one step may take to reach the page: a workflow task, an activity, a state read. */
const stepMs = 20_000;
const artifacts = path.join(__dirname, '../test-artifacts/dashboard');

let worker: CliProcess;
let dashboard: Awaited<ReturnType<typeof startTestDashboard>>;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true });
  worker = new CliProcess({
    args: ['worker', '--agent', agent, '--json'],
    env: { DURABLE_TURNS_TASK_QUEUE: taskQueue },
  });
  await worker.waitFor({ pattern: /"worker":"ready"/, what: 'the worker was ready' });
  dashboard = await startTestDashboard({ taskQueue, options: { token } });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(stepMs);
  page = await context.newPage();
}, 90_000);
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await dashboard?.close();
  worker?.kill('SIGINT');
  await worker?.done;
});

test('"Branch after this turn" on an ended turn starts a branch of the conversation after it, linked to its page, which says what it is a branch of; a point past the ended turns is a 409', async () => {
  const conversations = new ConversationClient(dashboard.client);
  const source = uniqueTurnId('conv-ui-branch');
  const branchId = `${source}-b`;
  await conversations.send(source, 'echo twice', {
    messageId: `${source}-1`,
    turn: { model: 'quick' },
  });
  await conversations.turn(source, 1).result();

  await page.goto(`${dashboard.url}/login`);
  await page.getByLabel(/Dashboard token/).fill(token);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByText('logged in').waitFor();
  await page.goto(`${dashboard.url}/#/conversations/${encodeURIComponent(source)}`);
  const turn1 = page.locator(`[data-turn-id="${source}#1"][data-turn-status="completed"]`);
  await turn1.getByRole('button', { name: 'Branch after this turn' }).click();
  await page.getByLabel(/New conversation id/).fill(branchId);
  await page.getByRole('button', { name: 'Branch after turn 1', exact: true }).click();
  const dialog = page.getByRole('dialog');
  expect(await dialog.locator('[data-confirm-branch-id]').textContent()).toBe(branchId);
  await page.screenshot({ path: path.join(artifacts, 'branch-confirm.png'), fullPage: true });
  await dialog.getByRole('button', { name: 'Branch', exact: true }).click();

  // Linked once it exists; its page says it is a branch of the source after turn 1.
  await page.locator(`[data-branch-link="${branchId}"]`).click();
  const branchOf = page.locator(`[data-branch-of="${source}"][data-branch-after-turn="1"]`);
  await branchOf.waitFor();
  expect(await branchOf.getByRole('link', { name: source }).getAttribute('href')).toBe(
    `#/conversations/${encodeURIComponent(source)}`,
  );
  await page.screenshot({ path: path.join(artifacts, 'branch-page.png'), fullPage: true });
  expect(page.url()).toBe(`${dashboard.url}/#/conversations/${encodeURIComponent(branchId)}`);
  const state = await conversations.state(branchId);
  expect(state.origin).toEqual([{ conversationId: source, turns: 1, incarnation: expect.any(String) }]);
  expect(state.turnCount).toBe(0);

  // The API: after turn 2 of a conversation with one ended turn is refused, in the library's words;
  // the id taken is refused too, as is a source with no turn to say its model, and none at all.
  const branch = (body: object, from = source) =>
    fetch(`${dashboard.url}/api/conversations/${encodeURIComponent(from)}/branch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const past = await branch({ afterTurn: 2 });
  expect(past.status).toBe(409);
  expect(((await past.json()) as { error: string }).error).toMatch(
    /has 1 ended turn: a branch goes after one of them \(0 to 1\)/,
  );
  const taken = await branch({ afterTurn: 1, conversationId: branchId });
  expect(taken.status).toBe(409);
  expect(((await taken.json()) as { error: string }).error).toMatch(/exists already/);
  const noModel = await branch({ afterTurn: 0 }, branchId);
  expect(noModel.status).toBe(409);
  expect(((await noModel.json()) as { error: string }).error).toMatch(
    /model .* is not known \(it has no turn yet\)/,
  );
  expect((await branch({ afterTurn: 0 }, `${source}-none`)).status).toBe(404);
});
