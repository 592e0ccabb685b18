/**
 * The files of a fresh project that uses the installed package, as a user would write them. Kept as
 * text: they are compiled and run inside that project, against the tarball, never against this repo.
 */

/** The entry points and a few names each must export; internals must not leak from the root. */
export const entryPoints = {
  'durable-turns': [
    'defineTool',
    'InProcessExecutor',
    'MemoryJournal',
    'scriptedModel',
    'aiSdkModel',
    'createModel',
    'JournalError',
    'NonRetryableToolError',
    'transcriptProblems',
    'turnConfigSchema',
  ],
  'durable-turns/worker': ['createTurnWorker', 'TranscriptCache', 'installSdkMetrics'],
  'durable-turns/metrics': ['TurnMetrics', 'startMetricsServer', 'metricsConfigFromEnv'],
  'durable-turns/client': ['TurnClient', 'TurnHandle', 'turnSearchAttributeList', 'chatConversations'],
  'durable-turns/devserver': ['ensureTemporal', 'startDevServer', 'resolveTemporalCli', 'TemporalSetupError'],
  'durable-turns/sqlite': ['SqliteJournal'],
  'durable-turns/mcp': ['mcpTools', 'idempotencyKeyMeta'],
  'durable-turns/ui-stream': ['turnUiStreamResponse', 'turnUiChunks', 'visibleParts', 'chatRoute'],
  'durable-turns/tracing': ['createTurnTracing', 'turnTracingFromEnv', 'turnClientInterceptors'],
  'durable-turns/codec': [
    'EncryptionCodec',
    'parseEncryptionKeys',
    'turnDataConverter',
    'PayloadKeyMissingError',
  ],
} as const;

/** Engine internals: exported from the repo's `core/`, never from the package root. */
export const internals = [
  'TurnEngine',
  'planWaves',
  'planLaunches',
  'applyEntry',
  'stableHash',
  'canonicalJson',
  'LoopDetector',
  'feedHostEvent',
];

/** Prints each entry point's export names as JSON, loading them with `require`. */
export const listExportsCjs = `
const names = {};
for (const entry of ${JSON.stringify(Object.keys(entryPoints))}) names[entry] = Object.keys(require(entry));
console.log(JSON.stringify(names));
`;

/** The same through ESM \`import\` of the CommonJS package (named exports must be detected). */
export const importNamesEsm = `
${Object.entries(entryPoints)
  .map(
    ([entry, names], i) => `import { ${names.map((n) => `${n} as e${i}_${n}`).join(', ')} } from '${entry}';`,
  )
  .join('\n')}
const loaded = [${Object.entries(entryPoints)
  .flatMap(([, names], i) => names.map((n) => `e${i}_${n}`))
  .join(', ')}];
console.log(JSON.stringify({ defined: loaded.filter((x) => x !== undefined).length, total: loaded.length }));
`;

/** A turn in process, journaled to SQLite: a tool with a zod schema, the scripted model. */
const turnBody = `
const tool = defineTool({
  name: 'shout',
  description: 'Upper-cases text',
  input: z.object({ text: z.string() }),
  concurrencySafe: true,
  execute: async ({ text }, ctx) => ({ loud: text.toUpperCase(), key: ctx.idempotencyKey }),
});
const model = scriptedModel([
  { toolCalls: [{ id: 'c1', name: 'shout', args: { text: 'hello' } }, { id: 'c2', name: 'shout', args: { text: 'world' } }] },
  { text: 'done' },
], 'consumer');
const journal = new SqliteJournal({ path: process.argv[2] });
const result = await new InProcessExecutor({ tools: [tool], model, journal }).runTurn({ turnId: 'consumer-turn', input: 'shout' });
console.log(JSON.stringify({ status: result.status, text: result.text, outputs: result.outputs.map((o) => [o.toolCallId, o.status, o.content]) }));
`;

export const turnCjs = `
const { defineTool, InProcessExecutor, scriptedModel } = require('durable-turns');
const { SqliteJournal } = require('durable-turns/sqlite');
const { z } = require('zod');
(async () => {${turnBody}})().catch((e) => { console.error(e); process.exit(1); });
`;

export const turnEsm = `
import { defineTool, InProcessExecutor, scriptedModel } from 'durable-turns';
import { SqliteJournal } from 'durable-turns/sqlite';
import { z } from 'zod';
${turnBody}
`;

/** Only opens the SQLite journal: run before better-sqlite3 is installed. */
export const openSqliteCjs = `
const { SqliteJournal } = require('durable-turns/sqlite');
new SqliteJournal({ path: ':memory:' });
`;

/** Type-checks against the shipped declarations: inferred tool arguments, result and option types. */
export const consumerTs = `
import { defineTool, InProcessExecutor, scriptedModel, type TurnResult, type ToolOutput } from 'durable-turns';
import type { CreateTurnWorkerOptions } from 'durable-turns/worker';
import type { TurnStateView } from 'durable-turns/client';
import type { EnsuredTemporal } from 'durable-turns/devserver';
import { SqliteJournal } from 'durable-turns/sqlite';
import { z } from 'zod';

const tool = defineTool({
  name: 'add',
  description: 'Adds',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => a + b,
});
const executor = new InProcessExecutor({ tools: [tool], model: scriptedModel([{ text: 'hi' }]), journal: new SqliteJournal({ path: ':memory:' }) });
export async function run(): Promise<ToolOutput['status'][]> {
  const result: TurnResult = await executor.runTurn({ turnId: 't', input: 'hi' });
  return result.outputs.map((o) => o.status);
}
export type Uses = [CreateTurnWorkerOptions['taskQueue'], TurnStateView['phase'], EnsuredTemporal['address']];
`;

/** Must NOT type-check: proves the declarations carry real types (with \`any\` it would pass). */
export const misuseTs = `
import { defineTool } from 'durable-turns';
import { z } from 'zod';
defineTool({
  name: 'add',
  description: 'Adds',
  input: z.object({ a: z.number() }),
  execute: async ({ a }) => a.toUpperCase(),
});
`;

export const consumerTsconfig = {
  compilerOptions: {
    strict: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    noEmit: true,
    types: ['node'],
  },
};
