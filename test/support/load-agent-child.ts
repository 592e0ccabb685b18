/**
 * Loads the agent module named in argv as `durable-turns worker --agent` does, in a process of its
 * own (Node's import() of a file, under tsx as the CLI runs here), and prints its model and tool
 * names, or the error, as JSON: for cli/load-agent.test.ts.
 */
import { loadAgent, modelNames, toolNames } from '../../cli/load-agent';

loadAgent({ specifier: process.argv[2] }).then(
  async (agent) => {
    console.log(JSON.stringify({ models: modelNames({ agent }), tools: toolNames({ agent }) }));
    // Its MCP servers' connections (stdio servers are child processes) would keep this one alive.
    await agent.mcp?.close();
  },
  (error: unknown) =>
    console.log(JSON.stringify({ error: error instanceof Error ? error.message : String(error) })),
);
