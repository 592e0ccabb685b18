import type { TurnResult } from 'durable-turns';
import { type McpToolbox, mcpTools } from 'durable-turns/mcp';
import { everythingOverStdio } from '../support/mcp-servers';
import { toggleModel, toggleServer } from '../support/session-toggle';
import type { ConformanceHarness } from './harness';
import { uniqueTurnId } from './support';

const toggleOutput = (result: TurnResult) => result.outputs[0];

/**
 * MCP servers whose sessions are per conversation, on each executor (over stdio a session is a
 * server process of its own; `server-everything`'s toggle says whether it is the same one).
 */
export function mcpSessionCases(harness: ConformanceHarness): void {
  describe(`MCP sessions per conversation (${harness.name})`, () => {
    let mcp: McpToolbox | undefined;
    afterEach(async () => {
      await mcp?.close();
      mcp = undefined;
    });

    test("a conversation's turns share one session with a `conversation` server, and another conversation has its own; none is told of a new session", async () => {
      mcp = await mcpTools({
        servers: [everythingOverStdio(toggleServer)],
      });
      const converse = (label: string) =>
        harness.converse({ conversationId: uniqueTurnId(label), tools: [], mcp, model: toggleModel });
      const first = await converse('mcp-session-a');
      const second = await converse('mcp-session-b');
      try {
        // Interleaved, so that one session shared by both would answer otherwise each time.
        const one = toggleOutput(await first.say('m1', 'toggle'));
        const other = toggleOutput(await second.say('m1', 'toggle'));
        const two = toggleOutput(await first.say('m2', 'toggle again'));

        expect(one).toMatchObject({ status: 'ok', content: expect.stringMatching(/^Started /) });
        // A session of its own: nothing was started in it yet.
        expect(other).toMatchObject({ status: 'ok', content: expect.stringMatching(/^Started /) });
        // The same session as turn 1: the updates it started are stopped.
        expect(two).toMatchObject({ status: 'ok', content: expect.stringMatching(/^Stopped /) });
      } finally {
        await first.end();
        await second.end();
      }
    });
  });
}
