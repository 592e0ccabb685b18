import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { Command } from 'commander';
import { z } from 'zod';
import { CliError } from '../cli-error';
import { commandSetup, withClient } from '../command-setup';
import { exitCodes } from '../exit-codes';
import { findTurn } from '../find-turn';
import { parseFlags } from '../parse-flags';

const decideFlagsSchema = z.object({ reason: z.string().min(1).max(2_000).optional() });

/** `approve` and `reject`: one decision on a call waiting for approval, through the turn's update. */
export function registerDecideCommand({ program, approved }: { program: Command; approved: boolean }): void {
  const verb = approved ? 'approve' : 'reject';
  program
    .command(verb)
    .description(
      approved
        ? 'approve a call waiting for a decision: it runs'
        : 'reject a call waiting for a decision: it gets an error output the model reads',
    )
    .argument('<turn-id>', 'the turn')
    .argument('<call-id>', 'the tool call id (shown by run, watch and show)')
    .option('--reason <text>', approved ? 'why (kept in the journal)' : 'why (the model reads it)')
    .action(async (turnId: string, toolCallId: string, values: Record<string, unknown>, command: Command) => {
      const setup = commandSetup({ command });
      const { reason } = parseFlags({ schema: decideFlagsSchema, values });
      process.exitCode = await withClient({
        setup,
        run: async (connected) => {
          const { handle, running, endedAs } = await findTurn({ connected, turnId });
          if (!running)
            throw new CliError(
              `turn ${turnId} already ended (${endedAs}); no call of it waits for a decision`,
            );
          try {
            await (approved ? handle.approve(toolCallId, reason) : handle.reject(toolCallId, reason));
          } catch (error) {
            if (error instanceof WorkflowUpdateFailedError)
              throw new CliError(
                `cannot ${verb} ${toolCallId} of turn ${turnId}: ${error.cause?.message ?? error.message}; \`${setup.context.prefix} show ${turnId}\` lists the calls waiting`,
                { cause: error },
              );
            throw error;
          }
          if (setup.output.json)
            setup.output.jsonLine({ turnId, toolCallId, approved, ...(reason && { reason }) });
          else setup.output.result(`${approved ? 'approved' : 'rejected'} ${toolCallId} of turn ${turnId}`);
          return exitCodes.ok;
        },
      });
    });
}
