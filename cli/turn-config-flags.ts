import { type Command, Option } from 'commander';
import { z } from 'zod';
import type { StartTurnArgs } from '../client';
import { countFlagSchema, durationFlagSchema } from './duration-flag';
import { outputFlagsHelp, outputOf } from './output-flags';

/** The flags that say how a turn runs (budget, dispatch, approvals, a structured answer): `run`'s and `fork`'s. */
export const turnConfigFlagsSchema = z.object({
  maxModelResponses: countFlagSchema.optional(),
  maxToolCalls: countFlagSchema.optional(),
  maxTokens: countFlagSchema.optional(),
  maxWallTime: durationFlagSchema.optional(),
  sequential: z.boolean().default(false),
  maxConcurrency: countFlagSchema.optional(),
  approvalTimeout: durationFlagSchema.optional(),
  // Read and checked by `outputOf` (a file or inline JSON, and what goes with it).
  outputSchema: z.string().optional(),
  outputName: z.string().optional(),
  outputRetries: z.string().optional(),
});
export type TurnConfigFlags = z.infer<typeof turnConfigFlagsSchema>;

/** Adds the flags of `turnConfigFlagsSchema` to `command`. */
export function addTurnConfigOptions(command: Command): Command {
  return command
    .option('--max-model-responses <n>', 'budget: model responses')
    .option('--max-tool-calls <n>', 'budget: tool calls')
    .option('--max-tokens <n>', 'budget: tokens (input + output)')
    .option(
      '--max-wall-time <duration>',
      'budget: wall time (500ms, 30s, 5m, 1h), checked before each model request and after each tool call: a call or a response already running is not cut short',
    )
    .addOption(
      new Option('--sequential', 'run one call at a time (default: parallel waves)').conflicts(
        'maxConcurrency',
      ),
    )
    .option('--max-concurrency <n>', 'at most this many calls of a wave at once')
    .option('--approval-timeout <duration>', 'reject a call nobody approved within this long')
    .option('--output-schema <schema>', outputFlagsHelp.schema)
    .option('--output-name <name>', outputFlagsHelp.name)
    .option('--output-retries <n>', outputFlagsHelp.retries);
}

/** The parsed flags as `TurnClient.start` takes them; a bad output schema is a usage error (see `outputOf`). */
export async function turnConfigOf(
  flags: TurnConfigFlags,
): Promise<Pick<StartTurnArgs, 'budget' | 'dispatch' | 'approvals' | 'output'>> {
  const structured = await outputOf({
    schema: flags.outputSchema,
    name: flags.outputName,
    retries: flags.outputRetries,
  });
  const budget = {
    ...(flags.maxModelResponses && { maxModelResponses: flags.maxModelResponses }),
    ...(flags.maxToolCalls && { maxToolCalls: flags.maxToolCalls }),
    ...(flags.maxTokens && { maxTokens: flags.maxTokens }),
    ...(flags.maxWallTime && { maxWallTimeMs: flags.maxWallTime }),
  };
  return {
    ...(Object.keys(budget).length > 0 && { budget }),
    dispatch: {
      ...(flags.sequential && { mode: 'sequential' as const }),
      ...(flags.maxConcurrency && { maxConcurrency: flags.maxConcurrency }),
    },
    ...(flags.approvalTimeout && { approvals: { timeoutMs: flags.approvalTimeout } }),
    ...(structured && { output: structured }),
  };
}
