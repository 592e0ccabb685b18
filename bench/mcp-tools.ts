/**
 * What an MCP tool call costs through durable-turns, against the MCP SDK's own client calling the
 * same reference server (`server-everything` over stdio) in the same rounds:
 * - per call: a turn of N sequential `echo` calls against a turn of one, (T(N) − T(1)) / (N − 1),
 *   beside N `client.callTool` round trips / N on a connection of its own;
 * - the engine's own part: the same turns with a no-op tool of the host's own;
 * - the list a turn pins when it begins (`toolbox.list()`: held while the server announces no change).
 * `npx tsx bench/mcp-tools.ts` → bench/results/mcp-tools.json.
 */

import { loadavg } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { defineTool, InProcessExecutor, scriptedModel, type TurnResult } from 'durable-turns';
import { mcpTools } from 'durable-turns/mcp';
import { z } from 'zod';
import {
  check,
  logger,
  machineInfo,
  measureRounds,
  median,
  medianInterval,
  round,
  runBench,
  summarize,
  writeReport,
} from './measure';

const CALLS = Number(process.env.BENCH_CALLS ?? 20);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const everything = path.join(
  __dirname,
  '../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
const log = logger('mcp');

async function main() {
  const loadBefore = loadavg()[0] ?? 0;
  const server = { type: 'stdio' as const, command: process.execPath, args: [everything, 'stdio'] };
  const toolbox = await mcpTools({
    servers: [{ name: 'everything', trusted: true, only: ['echo'], transport: server }],
  });
  const floor = new Client({ name: 'bench-floor', version: '1' });
  await floor.connect(new StdioClientTransport({ ...server, stderr: 'pipe' }));
  let turns = 0;
  const script = (calls: number) =>
    scriptedModel([
      {
        toolCalls: Array.from({ length: calls }, (_, index) => ({
          id: `c${index}`,
          name: 'everything_echo',
          args: { message: `m${index}` },
        })),
      },
      { text: 'done' },
    ]);
  const executor = (calls: number) =>
    new InProcessExecutor({
      tools: [],
      mcp: toolbox,
      model: script(calls),
      dispatch: { mode: 'sequential' },
    });
  // The same turn with a tool of the host's own that does nothing: what the engine spends on a call.
  const native = defineTool({
    name: 'everything_echo',
    description: 'does nothing',
    input: z.object({ message: z.string() }),
    concurrencySafe: true,
    execute: ({ message }) => `Echo: ${message}`,
  });
  const nativeExecutor = (calls: number) =>
    new InProcessExecutor({
      tools: [native],
      model: script(calls),
      dispatch: { mode: 'sequential' },
    });
  const turnTrial =
    (calls: number, make = executor) =>
    () => {
      let result: TurnResult | undefined;
      return {
        run: async () => {
          turns += 1;
          result = await make(calls).runTurn({ turnId: `bench-${turns}`, input: 'echo' });
        },
        verify: () =>
          check(
            result?.status === 'completed' && result.outputs.every((output) => output.status === 'ok'),
            `a turn of ${calls} MCP calls did not complete with ok outputs`,
          ),
      };
    };
  const floorTrial = () => {
    let answers = 0;
    return {
      run: async () => {
        for (let index = 0; index < CALLS; index++) {
          await floor.callTool({ name: 'echo', arguments: { message: `m${index}` } });
          answers += 1;
        }
      },
      verify: () => check(answers === CALLS, 'the floor did not make every call'),
    };
  };
  const listTrial = () => {
    let tools = 0;
    return {
      run: async () => {
        tools = (await toolbox.list()).servers[0]?.tools.length ?? 0;
      },
      verify: () => check(tools === 1, 'the list did not hold echo'),
    };
  };
  const rounds = await measureRounds({
    trials: {
      turn1: turnTrial(1),
      turnN: turnTrial(CALLS),
      native1: turnTrial(1, nativeExecutor),
      nativeN: turnTrial(CALLS, nativeExecutor),
      floorN: floorTrial,
      list: listTrial,
    },
    warmup: 3,
    runs: RUNS,
    onProgress: log,
  });
  await toolbox.close();
  await floor.close();

  const perCall = rounds.map((r) => (r.turnN.wallMs - r.turn1.wallMs) / (CALLS - 1));
  const floorPerCall = rounds.map((r) => r.floorN.wallMs / CALLS);
  const enginePerCall = rounds.map((r) => (r.nativeN.wallMs - r.native1.wallMs) / (CALLS - 1));
  const ratios = rounds.map((_, index) => (perCall[index] as number) / (floorPerCall[index] as number));
  const interval = medianInterval(ratios);
  await writeReport('mcp-tools.json', {
    calls: CALLS,
    rounds: RUNS,
    perCallMs: {
      durableTurns: round(median(perCall)),
      sdkClient: round(median(floorPerCall)),
      engineWithANoOpTool: round(median(enginePerCall)),
    },
    ratio: {
      median: round(median(ratios)),
      interval90: { low: round(interval.low), high: round(interval.high) },
    },
    listMs: round(summarize(rounds.map((r) => r.list.wallMs)).medianMs),
    turnOfOneMs: round(median(rounds.map((r) => r.turn1.wallMs))),
    machine: machineInfo(loadBefore),
  });
}

runBench(main);
