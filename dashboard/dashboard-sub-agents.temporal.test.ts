import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Worker } from '@temporalio/worker';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { z } from 'zod';
import { agentTool, defineTool, type ModelRequest, type TurnModel } from '../core';
import { scriptedModel } from '../models';
import { uniqueTurnId } from '../test/conformance/support';
import { startTestDashboard } from '../test/dashboard/dashboard-fixture';
import { launchChromium } from '../test/dashboard/launch-chromium';
import { TemporalKit } from '../test/temporal/support/kit';

/**
 * A parent turn's page in headless Chromium, showing what its sub-agents (`agentTool`) wait for, and
 * deciding it there: a worker in this process (its tools and model are the test's), a real dashboard.
 */
const token = 'sub-agents-token-0123456789abcdefgh';
/** How long one step of a turn may take to reach the page (a workflow task, an activity, a state read). */
const stepMs = 20_000;

const deployed: string[] = [];
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys (a person must approve it)',
  input: z.object({ target: z.string() }),
  requiresApproval: true,
  execute: ({ target }, { turnId }) => {
    deployed.push(`${turnId}: ${target}`);
    return `deployed ${target}`;
  },
});
const isSubAgent = (request: ModelRequest) => request.turnId.includes('/agent/');
const scripted = scriptedModel(
  [
    (request) =>
      isSubAgent(request)
        ? { toolCalls: [{ id: 'd1', name: 'deploy', args: { target: 'staging' } }] }
        : { toolCalls: [{ id: 'r1', name: 'releaser', args: { task: 'ship it' } }] },
    (request) => ({ text: isSubAgent(request) ? 'shipped to staging' : 'released' }),
  ],
  'scripted-releaser',
);
/**
 * Each of the sub-agent's responses waits for the test to let it go: it asks for its deploy once the
 * parent's page is open (so only the parent's state tells the page, not the page's first read), and
 * answers after it once the page has dropped the decided call (while the parent's call still runs).
 */
const gate = () => {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};
const gates = [gate(), gate()];
const model: TurnModel = {
  name: scripted.name,
  async *stream(request) {
    if (isSubAgent(request)) await gates[request.responseIndex]?.promise;
    yield* scripted.stream(request);
  },
};
const releaser = agentTool({ name: 'releaser', description: 'Releases', model: model.name });

const kit = new TemporalKit();
let worker: Worker;
let running: Promise<void>;
let dashboard: Awaited<ReturnType<typeof startTestDashboard>>;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  await kit.open();
  const taskQueue = kit.taskQueue('dashboard-sub-agents');
  worker = await kit.worker({ taskQueue, tools: [releaser, deploy], model });
  running = worker.run();
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
  worker?.shutdown();
  await running;
  await kit.close();
});

test("a sub-agent's call waiting for approval shows under its parent's agent call, and approved there it runs: the parent completes with the sub-agent's answer", async () => {
  await page.goto(`${dashboard.url}/login`);
  await page.getByLabel(/Dashboard token/).fill(token);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByText('logged in').waitFor();

  const turnId = uniqueTurnId('ui-sub-agent');
  const child = `${turnId}/agent/r1`;
  const handle = await dashboard.client.start({ turnId, model: model.name, input: 'release' });
  await page.goto(`${dashboard.url}/#/turns/${encodeURIComponent(turnId)}`);
  await page.locator('[data-call-id="r1"][data-outcome="running"]').waitFor();
  gates[0]?.resolve();

  // Under the parent's call r1: the sub-agent's d1, labelled with the sub-agent's turn (a link).
  const waiting = page.locator(
    `[data-call-id="r1"] [data-sub-agent-call="d1"][data-sub-agent-turn="${child}"]`,
  );
  await waiting.waitFor();
  expect(await waiting.locator('[data-call-args]').textContent()).toContain('staging');
  expect(await waiting.getByRole('link', { name: child }).getAttribute('href')).toBe(
    `#/turns/${encodeURIComponent(child)}`,
  );
  expect(deployed).toEqual([]);
  const artifacts = path.join(__dirname, '../test-artifacts/dashboard');
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, 'sub-agent-waiting.png'), fullPage: true });

  await waiting.getByRole('button', { name: 'Approve', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Approve', exact: true }).click();
  await page.locator('[data-action-result="ok"]').waitFor();
  // The parent's next state no longer lists it, while its call r1 still runs.
  await waiting.waitFor({ state: 'detached' });
  expect(await page.locator('[data-call-id="r1"]').getAttribute('data-outcome')).toBe('running');
  expect(deployed).toEqual([`${child}: staging`]);
  gates[1]?.resolve();

  // The parent completes, r1's output the sub-agent's answer.
  await page.locator('[data-turn-status="completed"]').waitFor();
  await page.locator('[data-call-id="r1"] [data-output-status="ok"] summary').click();
  expect(await page.locator('[data-call-id="r1"] [data-output-content]').textContent()).toContain(
    'shipped to staging',
  );
  const result = await handle.result();
  expect(result.outputs[0]).toMatchObject({ toolCallId: 'r1', status: 'ok', content: 'shipped to staging' });
});
