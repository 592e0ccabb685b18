import { defineTool, renderToolOutput, scriptedModel, type ToolMessage } from 'durable-turns';
import { z } from 'zod';
import type { ConformanceHarness, TurnSpec } from './harness';
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
}
