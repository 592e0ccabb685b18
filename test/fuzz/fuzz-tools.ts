import { defineTool } from 'durable-turns';
import { z } from 'zod';
import { echoTool } from '../support/echo-tool';

/** The fuzz turns' tools: both always succeed, so any error output is the provider path's doing. */
export const fuzzReadFile = defineTool({
  name: 'read_file',
  description: 'Reads a file',
  input: z.object({ path: z.string() }),
  concurrencySafe: true,
  retrySafe: true,
  // The length, not the path: a megabyte of arguments must not come back as a megabyte of output.
  execute: ({ path }) => `read ${path.length} characters of path`,
});

export const fuzzEcho = echoTool;

export const fuzzTools = [fuzzReadFile, fuzzEcho];
