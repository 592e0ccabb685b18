/**
 * What stateful continuation saves on the wire: the bytes of each model request's body in a turn of
 * RESPONSES responses (each reading a file of OUTPUT_BYTES), sending the whole transcript (`full`)
 * or only what is new since the last receipt (`since-receipt`), against a local server speaking the
 * OpenAI Responses API. `npx tsx bench/continuation-bytes.ts` → bench/results/continuation-bytes.json.
 */
import { loadavg } from 'node:os';
import { createModel, defineTool, InProcessExecutor } from 'durable-turns';
import { z } from 'zod';
import { type OpenAiResponsesReply, startOpenAiResponsesServer } from '../test/support/models';
import { check, machineInfo } from './measure';
import { runBench, writeReport } from './write-report';

const RESPONSES = 50;
const OUTPUT_BYTES = 1_024;
const log = (message: string) => console.error(`[continuation] ${message}`);

const readFile = defineTool({
  name: 'read_file',
  description: 'Reads a file',
  input: z.object({ path: z.string() }),
  concurrencySafe: true,
  execute: ({ path: file }) => `${file}: ${'x'.repeat(OUTPUT_BYTES)}`,
});

async function requestBytes(continuation: 'full' | 'since-receipt'): Promise<number[]> {
  const script: OpenAiResponsesReply[] = [
    ...Array.from({ length: RESPONSES - 1 }, (_, i) => ({
      kind: 'stream' as const,
      id: `resp_${i}`,
      toolCalls: [{ callId: `c${i}`, name: 'read_file', argumentChunks: [`{"path":"file${i}.txt"}`] }],
    })),
    { kind: 'stream', id: 'resp_end', text: ['All read.'] },
  ];
  const server = await startOpenAiResponsesServer(script);
  try {
    const model = createModel(
      { provider: 'openai', api: 'responses', name: 'responses', model: 'gpt-test', baseURL: server.baseURL },
      { env: { OPENAI_API_KEY: 'sk-bench-0123456789' } },
    );
    const executor = new InProcessExecutor({ tools: [readFile], model, continuation });
    const result = await executor.runTurn({
      turnId: `bytes-${continuation}`,
      input: [
        { role: 'system', content: 'You read files.' },
        { role: 'user', content: `Read ${RESPONSES - 1} files.` },
      ],
    });
    check(result.status === 'completed', `${continuation} turn completed (${result.status})`);
    check(server.requests.length === RESPONSES, `${continuation}: ${RESPONSES} requests`);
    return server.requests.map((r) => Buffer.byteLength(JSON.stringify(r.body)));
  } finally {
    await server.close();
  }
}

async function main() {
  const loadBefore = loadavg()[0] ?? 0;
  log('full');
  const full = await requestBytes('full');
  log('since-receipt');
  const stateful = await requestBytes('since-receipt');
  const at = (bytes: number[], n: number) => bytes[n - 1] ?? 0;
  const report = {
    benchmark: 'continuation-bytes',
    machine: machineInfo(loadBefore),
    responses: RESPONSES,
    outputBytes: OUTPUT_BYTES,
    requestBytes: {
      full: { request10: at(full, 10), request50: at(full, 50), total: full.reduce((a, b) => a + b, 0) },
      sinceReceipt: {
        request10: at(stateful, 10),
        request50: at(stateful, 50),
        total: stateful.reduce((a, b) => a + b, 0),
      },
    },
    sinceReceiptOverFullAtRequest50: Number((at(stateful, 50) / at(full, 50)).toFixed(4)),
  };
  await writeReport('continuation-bytes.json', report);
}

runBench(main);
