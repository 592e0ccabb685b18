import { defineTool } from 'durable-turns';
import { z } from 'zod';

/** A safe, retry-safe tool that answers `echo <n>`: for tests where what a tool does is beside the point. */
export const echoTool = defineTool({
  name: 'echo',
  description: 'Answers with its argument',
  input: z.object({ n: z.number() }),
  concurrencySafe: true,
  retrySafe: true,
  execute: ({ n }) => `echo ${n}`,
});
