import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { defineTool, InProcessExecutor, type Message, type TurnModel, withFiles } from 'durable-turns';
import { TurnClient } from 'durable-turns/client';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
import { type BlobStore, fileBlobStore } from '../../blobs';
import { uniqueTurnId } from '../conformance/support';
import { type AnthropicReply, claudeAt, startAnthropicServer, type TestServer } from '../support/models';
import { TemporalKit } from '../temporal/support/kit';

/**
 * On Temporal as in process: a user's image in and a tool's screenshots out, large ones kept in the
 * blob store the client and the worker share, so the turn's history holds references — measured
 * here against the same turn with every screenshot inline.
 */
const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const servers: TestServer[] = [];
let blobs: string;
beforeEach(() => {
  blobs = mkdtempSync(path.join(tmpdir(), 'durable-turns-files-'));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  rmSync(blobs, { recursive: true, force: true });
});

const shots = [randomBytes(500 * 1024), randomBytes(500 * 1024), randomBytes(500 * 1024)];
const photo = randomBytes(300 * 1024);
const screenshots = defineTool({
  name: 'screenshots',
  description: 'Screenshots of the pages',
  input: z.object({ pages: z.array(z.string()) }),
  execute: ({ pages }) =>
    withFiles(
      `Screenshots of ${pages.join(', ')}`,
      pages.map((page, i) => ({
        mediaType: 'image/png',
        filename: `${page}.png`,
        data: shots[i] ?? Buffer.alloc(0),
      })),
    ),
});
const script: AnthropicReply[] = [
  {
    kind: 'stream',
    toolUses: [{ id: 'toolu_1', name: 'screenshots', inputChunks: ['{"pages":["a","b","c"]}'] }],
  },
  { kind: 'stream', text: ['Three pages, one photo.'] },
];
const input: Message[] = [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Compare my photo with the pages' },
      {
        type: 'file',
        mediaType: 'image/jpeg',
        filename: 'me.jpg',
        data: { base64: photo.toString('base64') },
      },
    ],
  },
];

async function claude(): Promise<{ model: TurnModel; server: TestServer }> {
  const server = await startAnthropicServer(script);
  servers.push(server);
  return { model: claudeAt(server.baseURL), server };
}

async function onTemporal({ store, inlineMaxBytes }: { store: BlobStore; inlineMaxBytes?: number }) {
  const taskQueue = kit.taskQueue('files');
  const turnId = uniqueTurnId('files');
  const { model, server } = await claude();
  const fileLimits = inlineMaxBytes === undefined ? {} : { fileLimits: { inlineMaxBytes } };
  const worker = await createTurnWorker({
    connection: kit.native,
    namespace: kit.namespace,
    taskQueue,
    tools: [screenshots],
    models: [model],
    blobStore: store,
    fleetHealth: false,
    ...fileLimits,
  });
  const result = await worker.runUntil(async () => {
    const client = new TurnClient({
      connection: kit.connection,
      namespace: kit.namespace,
      taskQueue,
      blobStore: store,
      ...fileLimits,
    });
    return (await client.start({ turnId, input, model: 'claude' })).result();
  });
  const plain = new Client({ connection: kit.connection, namespace: kit.namespace });
  const history = await plain.workflow.getHandle(turnId).fetchHistory();
  return { result, server, historyBytes: JSON.stringify(history).length };
}

test('an image in and three 500 KB screenshots out: the same transcript and requests as in process, and a history of references', async () => {
  const store = fileBlobStore({ directory: blobs });
  const temporal = await onTemporal({ store });
  expect(temporal.result.status).toBe('completed');

  const local = await claude();
  const inProcess = await new InProcessExecutor({
    tools: [screenshots],
    model: local.model,
    blobStore: store,
  }).runTurn({ turnId: uniqueTurnId('files-local'), input });
  expect(temporal.result.transcript).toEqual(inProcess.transcript);
  expect(temporal.server.requests.map((r) => r.body)).toEqual(local.server.requests.map((r) => r.body));

  // The provider got every byte: the photo with the question, the screenshots in the tool result.
  const second = JSON.stringify(temporal.server.requests[1]?.body);
  for (const bytes of [photo, ...shots]) expect(second).toContain(bytes.toString('base64'));
  // History holds references: a small fraction of the 1.8 MB of images the turn handled.
  const imageBytes = photo.length + shots.reduce((sum, s) => sum + s.length, 0);
  expect(temporal.historyBytes).toBeLessThan(imageBytes / 10);
});
