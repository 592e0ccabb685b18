import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { scriptedModel, type ToolLister, type TurnObserver, transcriptProblems } from 'durable-turns';
import { idempotencyKeyMeta, type McpToolbox, mcpTools } from 'durable-turns/mcp';
import { listedToolset } from '../../core';
import type { McpServerConfig } from '../../mcp';
import {
  everythingOverStdio,
  filesystemOverStdio,
  recordingProxy,
  relayedEverythingOverStdio,
  relayLog,
  startEverythingOverHttp,
} from '../support/mcp-servers';
import type { ConformanceHarness } from './harness';
import { RecordingObserver, uniqueTurnId } from './support';

const longRun = (id: string, seconds: number) => ({
  id,
  name: 'everything_trigger-long-running-operation',
  args: { duration: seconds, steps: 2 },
});

/** MCP servers' tools on each executor, against the reference servers from npm. */
export function mcpCases(harness: ConformanceHarness): void {
  describe(`MCP tools (${harness.name})`, () => {
    let toolboxes: McpToolbox[] = [];
    const open = async (...args: Parameters<typeof mcpTools>) => {
      const toolbox = await mcpTools(...args);
      toolboxes.push(toolbox);
      return toolbox;
    };
    afterEach(async () => {
      await Promise.all(toolboxes.map((toolbox) => toolbox.close()));
      toolboxes = [];
    });

    test("a trusted stdio server's tools are ordinary calls: named <server>_<tool>, read-only ones in one wave, MCP content kept with images as files", async () => {
      // Given as a fixed list, as listed when the toolbox was made.
      const { tools } = await open({ servers: [everythingOverStdio({ trusted: true })] });
      const observer = new RecordingObserver();
      const result = await runCalls(
        harness,
        { tools },
        [observer],
        [
          longRun('a', 1.5),
          longRun('b', 1.5),
          { id: 'sum', name: 'everything_get-sum', args: { a: 2, b: 3 } },
          { id: 'image', name: 'everything_get-tiny-image', args: {} },
          {
            id: 'ref',
            name: 'everything_get-resource-reference',
            args: { resourceType: 'Text', resourceId: 2 },
          },
        ],
      );

      expect(result.status).toBe('completed');
      // Read-only (annotated so by a trusted server): the two long calls ran at the same time, each
      // started before the other ended (the short ones may end before either starts).
      const at = (entry: string) => observer.order.indexOf(entry);
      expect(at('pre:a#1')).toBeLessThan(at('post:b#1'));
      expect(at('pre:b#1')).toBeLessThan(at('post:a#1'));
      const byId = new Map(result.outputs.map((output) => [output.toolCallId, output]));
      expect(byId.get('sum')).toMatchObject({ status: 'ok', content: 'The sum of 2 and 3 is 5.' });
      expect(byId.get('image')).toMatchObject({
        status: 'ok',
        content: { content: expect.arrayContaining([{ type: 'image', file: 1, mimeType: 'image/png' }]) },
        files: [expect.objectContaining({ mediaType: 'image/png' })],
      });
      expect(byId.get('ref')?.content).toMatchObject({
        content: expect.arrayContaining([
          expect.objectContaining({
            type: 'resource',
            uri: 'demo://resource/dynamic/text/2',
            mimeType: 'text/plain',
          }),
        ]),
      });
      expect(transcriptProblems(result.transcript)).toEqual([]);
    });

    test("an untrusted server's annotations are ignored: its read-only tools run one at a time and wait for approval", async () => {
      const mcp = await open({ servers: [everythingOverStdio()] });
      const observer = new RecordingObserver();
      const asked: string[] = [];
      const result = await runCalls(harness, { mcp }, [observer], [longRun('a', 0.2), longRun('b', 0.2)], {
        approver: async ({ toolCallId }) => {
          asked.push(toolCallId);
          return { approved: true };
        },
      });

      expect(result.status).toBe('completed');
      expect(asked.sort()).toEqual(['a', 'b']);
      expect(observer.order).toEqual(['pre:a#1', 'post:a#1', 'pre:b#1', 'post:b#1']);
    });

    test('an error result is an error output naming the server, not retried; arguments the schema refuses never reach the server', async () => {
      const root = await mkdtemp(path.join(os.tmpdir(), 'mcp-files-'));
      try {
        await writeFile(path.join(root, 'note.txt'), 'hello from the filesystem server');
        const mcp = await open({
          servers: [
            filesystemOverStdio(root, { defaults: { requiresApproval: false, retry: { maxAttempts: 3 } } }),
          ],
        });
        const result = await runCalls(
          harness,
          { mcp },
          [],
          [
            { id: 'read', name: 'files_read_text_file', args: { path: path.join(root, 'note.txt') } },
            { id: 'missing', name: 'files_read_text_file', args: { path: path.join(root, 'nothing.txt') } },
            { id: 'bad', name: 'files_read_text_file', args: { file: 'note.txt' } },
          ],
        );

        const byId = new Map(result.outputs.map((output) => [output.toolCallId, output]));
        expect(byId.get('read')).toMatchObject({
          status: 'ok',
          content: { content: 'hello from the filesystem server' },
        });
        expect(byId.get('missing')).toMatchObject({ status: 'error', attempts: 1 });
        expect(String(byId.get('missing')?.content)).toMatch(
          /MCP tool read_text_file of server files reported an error: .*ENOENT/,
        );
        expect(byId.get('bad')).toMatchObject({
          status: 'error',
          errorType: 'invalid-arguments',
          attempts: 0,
        });
      } finally {
        await rm(root, { recursive: true, force: true });
      }
    });

    test('a turn keeps the tools listed when it began: a tool the server lists mid-turn is unknown to it, and the next turn has it', async () => {
      const mcp = await open({
        servers: [everythingOverStdio({ trusted: true, only: ['echo', 'get-sum'] })],
      });
      // The real server's list, without get-sum until `grown`: as a server that adds a tool mid-turn.
      let grown = false;
      const lister: ToolLister = {
        listed: mcp.listed,
        list: async () => {
          const now = await mcp.list();
          if (grown) return now;
          return listedToolset(
            now.servers.map((server) => ({
              ...server,
              tools: server.tools.filter((tool) => tool.name !== 'get-sum'),
            })),
          );
        },
        toolsOf: (toolset) => mcp.toolsOf(toolset),
      };
      const sum = { id: 'sum', name: 'everything_get-sum', args: { a: 1, b: 2 } };
      const first = await harness.start({
        turnId: uniqueTurnId('mcp-pinned'),
        input: 'echo, then add',
        tools: [],
        mcp: lister,
        // The list grows once the first call runs: before the turn's second request.
        observers: [
          {
            onToolPre: () => {
              grown = true;
            },
          },
        ],
        model: scriptedModel([
          { toolCalls: [{ id: 'echo', name: 'everything_echo', args: { message: 'one' } }] },
          { toolCalls: [sum] },
          { text: 'done' },
        ]),
      });
      const firstResult = await first.result;
      expect(
        firstResult.outputs.map((output) => [output.toolCallId, output.status, output.errorType]),
      ).toEqual([
        ['echo', 'ok', undefined],
        ['sum', 'error', 'unknown-tool'],
      ]);

      const second = await runCalls(harness, { mcp: lister }, [], [sum]);
      expect(second.outputs[0]).toMatchObject({ status: 'ok', content: 'The sum of 1 and 2 is 3.' });
    });

    /** A turn whose one long call's server is killed once it has the call. */
    async function killedMidCall(options: Partial<McpServerConfig>) {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-relay-'));
      const logFile = path.join(dir, 'relay.log');
      try {
        const mcp = await open({
          servers: [relayedEverythingOverStdio(logFile, { trusted: true, ...options })],
        });
        const turnId = uniqueTurnId('mcp-killed');
        const turn = await harness.start({
          turnId,
          input: 'something long',
          tools: [],
          mcp,
          model: scriptedModel([{ toolCalls: [longRun('long', 2)] }, { text: 'done' }]),
        });
        const calls = async () =>
          (await relayLog(logFile)).sent.filter((message) => message.method === 'tools/call');
        while ((await calls()).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
        const [pid] = (await relayLog(logFile)).pids;
        process.kill(pid ?? 0, 'SIGKILL');
        const result = await turn.result;
        return { turnId, result, after: await relayLog(logFile), calls: await calls() };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }

    test('a server killed mid-call: a retry-safe call runs again, on a server started anew, with the same idempotency key', async () => {
      // No retry policy given: a retry-safe MCP tool is tried up to three times by default.
      const { turnId, result, after, calls } = await killedMidCall({});

      expect(result.status).toBe('completed');
      expect(result.outputs[0]).toMatchObject({ status: 'ok', attempts: 2 });
      expect(after.pids).toHaveLength(2);
      expect(calls.map((message) => message.params?._meta?.[idempotencyKeyMeta])).toEqual([
        `${turnId}/long`,
        `${turnId}/long`,
      ]);
    });

    test('a server killed mid-call of a tool that is not retry-safe: the call ends with an error saying its outcome is unknown, not run again', async () => {
      // Even with a retry policy that would try again.
      const { result, calls } = await killedMidCall({
        defaults: { retry: { maxAttempts: 2, initialDelayMs: 10 } },
        tools: { 'trigger-long-running-operation': { retrySafe: false } },
      });

      expect(result.outputs[0]).toMatchObject({ status: 'error', attempts: 1 });
      expect(String(result.outputs[0]?.content)).toMatch(
        /MCP server everything lost tool trigger-long-running-operation's call after it was sent .*its outcome is unknown; not retried because the tool is not retry-safe/,
      );
      expect(calls).toHaveLength(1);
      expect(transcriptProblems(result.transcript)).toEqual([]);
    });

    test('over Streamable HTTP each call carries its idempotency key in _meta, and a cancel cancels the call on the server', async () => {
      const server = await startEverythingOverHttp();
      const proxy = await recordingProxy(server.url);
      try {
        const mcp = await open({
          servers: [{ name: 'everything', trusted: true, transport: { type: 'http', url: proxy.url } }],
        });
        const turnId = uniqueTurnId('mcp-http');
        let running: () => void = () => {};
        const started = new Promise<void>((resolve) => {
          running = resolve;
        });
        const observer: TurnObserver = {
          onToolPre: (event) => {
            if (event.toolCallId === 'slow') running();
          },
        };
        const turn = await harness.start({
          turnId,
          input: 'echo, then something slow',
          tools: [],
          mcp,
          observers: [observer],
          model: scriptedModel([
            { toolCalls: [{ id: 'echo', name: 'everything_echo', args: { message: 'over http' } }] },
            { toolCalls: [longRun('slow', 600)] },
            { text: 'never reached' },
          ]),
        });
        await started;
        // The call is on the wire once the server has it; then cancel.
        await waitFor(() =>
          proxy.sent.some((message) => message.params?.name === 'trigger-long-running-operation'),
        );
        await turn.cancel('operator stopped it');
        const result = await turn.result;

        expect(result.status).toBe('cancelled');
        expect(result.outputs.map((output) => [output.toolCallId, output.status])).toEqual([
          ['echo', 'ok'],
          ['slow', 'interrupted'],
        ]);
        const calls = proxy.sent.filter((message) => message.method === 'tools/call');
        expect(calls.map((message) => message.params?._meta?.[idempotencyKeyMeta])).toEqual([
          `${turnId}/echo`,
          `${turnId}/slow`,
        ]);
        await waitFor(() => proxy.sent.some((message) => message.method === 'notifications/cancelled'));
        expect(transcriptProblems(result.transcript)).toEqual([]);
      } finally {
        await proxy.stop();
        await server.stop();
      }
    });
  });
}

/** A turn that makes `calls` with the servers' tools: pinned per turn (`mcp`), or a fixed list (`tools`). */
async function runCalls(
  harness: ConformanceHarness,
  source: { mcp: ToolLister } | { tools: McpToolbox['tools'] },
  observers: TurnObserver[],
  calls: { id: string; name: string; args: Record<string, unknown> }[],
  extra: { approver?: Parameters<ConformanceHarness['start']>[0]['approver'] } = {},
) {
  return (
    await harness.start({
      turnId: uniqueTurnId('mcp'),
      input: 'use the MCP tools',
      ...('mcp' in source ? { tools: [], mcp: source.mcp } : { tools: source.tools }),
      observers,
      model: scriptedModel([{ toolCalls: calls }, { text: 'done' }]),
      ...extra,
    })
  ).result;
}

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}
