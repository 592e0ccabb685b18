import { defineTool, renderToolOutput, scriptedModel, type ToolMessage } from 'durable-turns';
import { z } from 'zod';
import type { ConformanceHarness, RunningTurn, TurnSpec } from './harness';
import { uniqueTurnId } from './support';
import { collect, entriesOf } from './watched';

/** A tool that needs a person's approval and counts, itself, every time it really runs. */
function guardedWrite() {
  const ran: unknown[] = [];
  const tool = defineTool({
    name: 'write_file',
    description: 'Writes a file',
    input: z.object({ path: z.string().startsWith('/'), text: z.string() }),
    requiresApproval: true,
    execute: (args) => {
      ran.push(args);
      return `wrote ${args.text.length} bytes to ${args.path}`;
    },
  });
  return { tool, ran };
}

const writeCall = { id: 'w1', name: 'write_file', args: { path: '/etc/passwd', text: 'root' } };

/** Runs the turn and reads its journal as watchers do: the decision is recorded there. */
async function runWatched(harness: ConformanceHarness, spec: TurnSpec) {
  const turn = await harness.start(spec);
  const [result, events] = await Promise.all([turn.result, collect(turn.watch({ live: false }))]);
  const decided = entriesOf(events).find((e) => e.entry.type === 'tool.approval_decided')?.entry;
  return { result, decided };
}

export function approvalCases(harness: ConformanceHarness): void {
  describe(`approval decisions (${harness.name})`, () => {
    test('an edit that fails the tool schema is refused and nothing runs; the corrected edit runs, and the model is told which arguments ran', async () => {
      const { tool, ran } = guardedWrite();
      const model = scriptedModel([{ toolCalls: [writeCall] }, { text: 'done' }]);
      const asked: { refused?: string; inputSchema?: unknown }[] = [];
      const { result, decided } = await runWatched(harness, {
        turnId: uniqueTurnId('edit'),
        input: 'save it',
        tools: [tool],
        model,
        approver: async ({ refused, inputSchema }) => {
          asked.push({ ...(refused !== undefined && { refused }), inputSchema });
          // First a path the schema refuses (not absolute), then one it takes.
          return refused === undefined
            ? { decision: 'approve', input: { path: 'tmp/x', text: 'root' }, by: 'alice' }
            : { decision: 'approve', input: { path: '/tmp/x', text: 'root' }, by: 'alice' };
        },
      });

      expect(ran).toEqual([{ path: '/tmp/x', text: 'root' }]);
      expect(asked).toHaveLength(2);
      expect(asked[0]?.inputSchema).toMatchObject({ type: 'object', required: ['path', 'text'] });
      expect(asked[1]?.refused).toMatch(
        /^the edited arguments do not match write_file's schema: path: .*; nothing ran, the call still waits$/,
      );
      expect(result.outputs[0]).toMatchObject({
        status: 'ok',
        content: 'wrote 4 bytes to /tmp/x',
        ranWith: { input: { path: '/tmp/x', text: 'root' }, by: 'alice' },
      });
      // The model's call stays as the model made it; its next request says what ran instead.
      const call = result.transcript.find((m) => m.role === 'assistant');
      expect(JSON.stringify(call)).toContain('/etc/passwd');
      const toolMessage = model.requests[1]?.messages.find((m): m is ToolMessage => m.role === 'tool');
      const seen = toolMessage ? renderToolOutput(toolMessage.content[0]!.output) : '';
      expect(seen).toContain('an approver (alice) edited the arguments; the call ran with {"path":"/tmp/x"');
      expect(decided).toMatchObject({
        approved: true,
        input: { path: '/tmp/x', text: 'root' },
        by: 'alice',
        via: 'approver',
        at: expect.any(Number),
      });
    });

    test('an approver may answer in the tool’s place: the tool never runs and the text is the call’s output', async () => {
      const { tool, ran } = guardedWrite();
      const { result, decided } = await runWatched(harness, {
        turnId: uniqueTurnId('respond'),
        input: 'save it',
        tools: [tool],
        model: scriptedModel([{ toolCalls: [writeCall] }, { text: 'done' }]),
        approver: async () => ({ decision: 'respond', output: 'saved it by hand', by: 'bob' }),
      });
      expect(ran).toEqual([]);
      expect(result.status).toBe('completed');
      expect(result.outputs[0]).toEqual({
        toolCallId: 'w1',
        name: 'write_file',
        status: 'ok',
        content: 'saved it by hand',
        attempts: 0,
        answeredBy: 'bob',
      });
      expect(decided).toMatchObject({
        approved: false,
        decision: 'respond',
        output: 'saved it by hand',
        by: 'bob',
      });
    });

    test('a rejection names who rejected; the model reads the reason', async () => {
      const { tool, ran } = guardedWrite();
      const { result, decided } = await runWatched(harness, {
        turnId: uniqueTurnId('reject-by'),
        input: 'save it',
        tools: [tool],
        model: scriptedModel([{ toolCalls: [writeCall] }, { text: 'done' }]),
        approver: async () => ({ decision: 'reject', reason: 'not this file', by: 'carol' }),
      });
      expect(ran).toEqual([]);
      expect(result.outputs[0]).toMatchObject({
        status: 'error',
        errorType: 'rejected',
        content: 'the call was rejected by an approver (carol): not this file',
      });
      expect(decided).toMatchObject({ approved: false, reason: 'not this file', by: 'carol' });
    });
  });

  describe(`grants (${harness.name})`, () => {
    test('"always allow" with a matcher covers the next three calls it matches, and the one it does not match asks', async () => {
      const { tool, ran } = guardedWrite();
      const write = (id: string, path: string) => ({ id, name: 'write_file', args: { path, text: 'x' } });
      const asked: string[] = [];
      const spec: TurnSpec = {
        turnId: uniqueTurnId('grant-match'),
        input: 'save them',
        tools: [tool],
        model: scriptedModel([
          { toolCalls: [write('w1', '/tmp/a')] },
          {
            toolCalls: [
              write('w2', '/tmp/b'),
              write('w3', '/etc/shadow'),
              write('w4', '/tmp/c'),
              write('w5', '/tmp/d'),
            ],
          },
          { text: 'done' },
        ]),
        approver: async ({ toolCallId }) => {
          asked.push(toolCallId);
          return toolCallId === 'w1'
            ? {
                decision: 'approve',
                by: 'alice',
                remember: { match: [{ path: 'path', pattern: '^/tmp/' }] },
              }
            : { decision: 'reject', reason: 'not there', by: 'alice' };
        },
      };
      const turn = await harness.start(spec);
      const [result, events] = await Promise.all([turn.result, collect(turn.watch({ live: false }))]);
      const entries = entriesOf(events).map((e) => e.entry);

      expect(asked).toEqual(['w1', 'w3']);
      expect(ran.map((args) => (args as { path: string }).path).sort()).toEqual([
        '/tmp/a',
        '/tmp/b',
        '/tmp/c',
        '/tmp/d',
      ]);
      expect(result.outputs.map((o) => [o.toolCallId, o.status])).toEqual([
        ['w1', 'ok'],
        ['w2', 'ok'],
        ['w3', 'error'],
        ['w4', 'ok'],
        ['w5', 'ok'],
      ]);
      const grantId = `${spec.turnId}/w1`;
      expect(entries.filter((e) => e.type === 'approval.granted')).toEqual([
        {
          type: 'approval.granted',
          grant: {
            grantId,
            toolName: 'write_file',
            match: [{ path: 'path', pattern: '^/tmp/' }],
            scope: 'turn',
            by: 'alice',
            via: 'approver',
            at: expect.any(Number),
          },
        },
      ]);
      const byGrant = entries.flatMap((e) =>
        e.type === 'tool.approval_decided' && e.grantId === grantId ? [e.toolCallId] : [],
      );
      expect(byGrant.sort()).toEqual(['w1', 'w2', 'w4', 'w5']);
      expect(result.grants?.map((g) => g.grantId)).toEqual([grantId]);
    });

    test('a grant taken while a call waits lets it run; once revoked, the next call asks again', async () => {
      const ran: string[] = [];
      let turn: RunningTurn | undefined;
      const tool = defineTool({
        name: 'deploy',
        description: 'Deploys',
        input: z.object({ env: z.string() }),
        requiresApproval: true,
        execute: async ({ env }) => {
          ran.push(env);
          // Revoked before this call ends: the model's next call comes after it.
          if (env === 'staging') await turn?.revoke('deploys');
          return `deployed ${env}`;
        },
      });
      const asked: string[] = [];
      turn = await harness.start({
        turnId: uniqueTurnId('grant-revoke'),
        input: 'ship it',
        tools: [tool],
        model: scriptedModel([
          { toolCalls: [{ id: 'd1', name: 'deploy', args: { env: 'staging' } }] },
          { toolCalls: [{ id: 'd2', name: 'deploy', args: { env: 'prod' } }] },
          { text: 'done' },
        ]),
        approver: async ({ toolCallId }) => {
          asked.push(toolCallId);
          if (toolCallId === 'd1') {
            // The operator grants instead of answering: the waiting call runs by the grant.
            await turn?.grant({ grantId: 'deploys', toolName: 'deploy', by: 'ops' });
            return new Promise(() => {});
          }
          return { decision: 'reject', reason: 'not prod', by: 'ops' };
        },
      });
      const result = await turn.result;
      expect(asked).toEqual(['d1', 'd2']);
      expect(ran).toEqual(['staging']);
      expect(result.outputs.map((o) => [o.toolCallId, o.status])).toEqual([
        ['d1', 'ok'],
        ['d2', 'error'],
      ]);
      expect(result.grants).toBeUndefined();
      await expect(turn.revoke('deploys')).rejects.toThrow();
    });
  });
}
