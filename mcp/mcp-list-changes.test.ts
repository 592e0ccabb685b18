import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { InProcessExecutor, scriptedModel } from 'durable-turns';
import { relayLog } from '../test/support/mcp-servers';
import { mcpTools } from './mcp-tools';

const growing = path.join(__dirname, '../test/support/mcp-growing-server.js');
const relay = path.join(__dirname, '../test/support/mcp-stdio-relay.js');

test('a server that announces changes to its list is listed again only after it announced one: the next turn sees the tool it added', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-growing-'));
  const logFile = path.join(dir, 'relay.log');
  const mcp = await mcpTools({
    servers: [
      {
        name: 'growing',
        trusted: true,
        transport: {
          type: 'stdio',
          command: process.execPath,
          args: [relay, logFile, process.execPath, growing],
        },
      },
    ],
  });
  const lists = async () =>
    (await relayLog(logFile)).sent.filter((message) => message.method === 'tools/list').length;
  const turn = (turnId: string, name: string) =>
    new InProcessExecutor({
      tools: [],
      mcp,
      model: scriptedModel([{ toolCalls: [{ id: 'c', name, args: {} }] }, { text: 'done' }]),
    }).runTurn({ turnId, input: 'go' });
  try {
    expect(mcp.tools.map((tool) => tool.name)).toEqual(['growing_grow']);
    const listedAtStart = await lists();

    // No change announced: a turn lists nothing anew.
    expect((await turn('t1', 'growing_grow')).outputs[0]).toMatchObject({ status: 'ok', content: 'grown' });
    expect(await lists()).toBe(listedAtStart);

    // `grow` added a tool and the server announced it: the next turn lists again and has it.
    expect((await turn('t2', 'growing_late')).outputs[0]).toMatchObject({
      status: 'ok',
      content: 'late here',
    });
    expect(await lists()).toBe(listedAtStart + 1);
  } finally {
    await mcp.close();
    await rm(dir, { recursive: true, force: true });
  }
});
