import type { Worker } from '@temporalio/worker';
import { chatConversations } from 'durable-turns/client';
import { type ChatRoute, chatRoute } from 'durable-turns/ui-stream';
import type { Browser, Page } from 'playwright-core';
import { chatTools } from '../../examples/chat/chat-agent';
import { startChatServer } from '../../examples/chat/chat-server';
import { launchChromium } from '../dashboard/launch-chromium';
import { signal } from '../support/signal';
import { TemporalKit } from '../temporal/support/kit';
import { heldChatModel } from './held-chat-model';

/**
 * The example's page in Chromium: `@ai-sdk/react`'s `useChat` against the chat route, on the dev
 * server. One page session, as a person would use it: a message, an approval, a reload mid-answer.
 */
const kit = new TemporalKit();
let worker: Worker;
let stopWorker: () => Promise<void>;
let server: { url: string; close(): Promise<void> };
let browser: Browser;
const release = signal();
/** When the model yielded each turn's first text (ms since the epoch, this machine's clock). */
const modelFirstText = new Map<string, number>();
/** Bytes the route sent in each POST's stream, by the turn it answered. */
const streamBytes: { turnId: string; bytes: number }[] = [];

/** The route, counting what its streams send on the wire. */
function counted(route: ChatRoute): ChatRoute {
  return {
    ...route,
    async handle(request, client) {
      const response = await route.handle(request, client);
      if (request.method !== 'POST' || !response.body) return response;
      const entry = { turnId: '', bytes: 0 };
      streamBytes.push(entry);
      const counter = new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          entry.bytes += chunk.byteLength;
          entry.turnId ||= /"messageId":"([^"]+)"/.exec(new TextDecoder().decode(chunk))?.[1] ?? '';
          controller.enqueue(chunk);
        },
      });
      return new Response(response.body.pipeThrough(counter), response);
    },
  };
}

beforeAll(async () => {
  await kit.open();
  const taskQueue = kit.taskQueue('chat-page');
  const model = heldChatModel({
    wordDelayMs: 30,
    held: () => release.happened,
    onFirstText: (turnId, at) => modelFirstText.set(turnId, at),
  });
  worker = await kit.worker({ taskQueue, tools: chatTools, model });
  const running = worker.run();
  stopWorker = async () => {
    worker.shutdown();
    await running;
  };
  const route = chatRoute({
    conversations: chatConversations(kit.client(taskQueue), { turn: { model: model.name } }),
  });
  server = await startChatServer({ route: counted(route) });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await stopWorker?.();
  await kit.close();
});

const assistant = (page: Page) => page.locator('.message.assistant');
const say = async (page: Page, text: string) => {
  await page.getByLabel('message').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
};
/** Waits until `count` answers show a completed turn. */
const completedAnswers = (page: Page, count: number) =>
  page
    .locator('[data-outcome="completed"]')
    .nth(count - 1)
    .waitFor();

test('a useChat page renders a live answer, approves a call from the page, and picks an answer up again after a reload mid-answer, nothing lost or repeated', async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}/`);
  await page.waitForURL(/\/chat\/chat-/);
  const chatId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2] ?? '');

  // A message, answered as it streams.
  await say(page, 'hello there');
  await completedAnswers(page, 1);
  expect(await assistant(page).nth(0).locator('.text').allTextContents()).toEqual([
    'You said: hello there. Say "deploy <service>" to see a call wait for your approval.',
  ]);
  const marks = await page.evaluate(
    () => (globalThis as unknown as { chatMarks: { sentAt?: number; firstTextAt?: number } }).chatMarks,
  );
  const modelAt = modelFirstText.get(`${chatId}#1`);

  // A call that waits for approval: the page shows it with its input; Approve runs it.
  await say(page, 'deploy api');
  const approve = page.getByRole('button', { name: 'Approve' });
  await approve.waitFor();
  expect(await assistant(page).nth(1).locator('.tool code').textContent()).toBe('{"service":"api"}');
  await approve.click();
  await completedAnswers(page, 2);
  expect(await assistant(page).nth(1).locator('.text').allTextContents()).toEqual([
    'I will deploy api once you approve.',
    'Done: api is live.',
  ]);
  expect(await assistant(page).nth(1).locator('.output').textContent()).toBe('api is live');

  // An answer held at its third word; the page reloads there and picks it up.
  await say(page, 'hold on, then answer');
  await assistant(page).nth(2).filter({ hasText: 'hold' }).waitFor();
  await page.reload();
  await assistant(page).nth(2).filter({ hasText: 'hold' }).waitFor();
  release.fire();
  await completedAnswers(page, 3);
  expect(await page.locator('.message.user').allTextContents()).toEqual([
    'hello there',
    'deploy api',
    'hold on, then answer',
  ]);
  expect(await assistant(page).nth(2).locator('.text').allTextContents()).toEqual([
    'You said: hold on, then answer. Say "deploy <service>" to see a call wait for your approval.',
  ]);
  // The earlier answers came back whole from the chat's record.
  expect(await assistant(page).nth(1).locator('.text').allTextContents()).toEqual([
    'I will deploy api once you approve.',
    'Done: api is live.',
  ]);
  expect(await assistant(page).count()).toBe(3);

  // What it cost: the page's first text after the model's, and the bytes of a plain answer's stream.
  const lag =
    marks.firstTextAt !== undefined && modelAt !== undefined ? marks.firstTextAt - modelAt : undefined;
  const firstTurnBytes = streamBytes.find((s) => s.turnId === `${chatId}#1`)?.bytes;
  process.stderr.write(
    `[chat-page] first text on the page ${lag} ms after the model's first token (sent → page ${
      (marks.firstTextAt ?? 0) - (marks.sentAt ?? 0)
    } ms); a 14-word answer's stream ${firstTurnBytes} bytes; streams ${JSON.stringify(streamBytes)}\n`,
  );
  expect(lag).toBeGreaterThanOrEqual(0);
  await page.close();
}, 120_000);
