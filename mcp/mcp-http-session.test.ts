import { InProcessExecutor, scriptedModel } from 'durable-turns';
import { startEverythingOverHttp } from '../test/support/mcp-servers';
import { mcpTools } from './mcp-tools';

test('an HTTP server that restarted (its sessions gone) is reached again with a new session: the refused attempt counts as not sent, and the next one runs', async () => {
  let server = await startEverythingOverHttp();
  const mcp = await mcpTools({
    servers: [
      { name: 'everything', trusted: true, only: ['echo'], transport: { type: 'http', url: server.url } },
    ],
  });
  const echo = (turnId: string) =>
    new InProcessExecutor({
      tools: [],
      mcp,
      model: scriptedModel([
        { toolCalls: [{ id: 'e', name: 'everything_echo', args: { message: turnId } }] },
        { text: 'ok' },
      ]),
    }).runTurn({ turnId, input: 'echo' });
  try {
    expect((await echo('before')).outputs[0]).toMatchObject({ status: 'ok', attempts: 1 });
    await server.stop();
    server = await startEverythingOverHttp({ port: server.port });

    const after = (await echo('after')).outputs[0];
    expect(after).toMatchObject({ status: 'ok', content: 'Echo: after', attempts: 2 });
  } finally {
    await mcp.close();
    await server.stop();
  }
});
