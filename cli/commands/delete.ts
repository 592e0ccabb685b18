import type { Command } from 'commander';
import { z } from 'zod';
import { ConversationClient } from '../../client/conversation-client';
import { ConversationRefusedError, threadIdSchema } from '../../core';
import { CliError } from '../cli-error';
import { commandSetup, withClient } from '../command-setup';
import { exitCodes } from '../exit-codes';
import { parseFlags } from '../parse-flags';

const deleteFlagsSchema = z.object({ yes: z.boolean().optional() });

export function registerDeleteCommand({ program }: { program: Command }): void {
  program
    .command('delete')
    .description(
      "delete a conversation for good: it is closed (its session-end hooks run, what waits is dropped), a running turn is cancelled and waited for, then its turns' histories and its own are deleted from Temporal; its id can then begin a new conversation",
    )
    .argument('<conversation-id>', 'the conversation')
    .option('--yes', 'really delete it (required: there is no undo)')
    .action(async (conversationId: string, values: Record<string, unknown>, command: Command) => {
      const setup = commandSetup({ command });
      const flags = parseFlags({ schema: deleteFlagsSchema, values });
      const { output } = setup;
      const id = threadIdSchema.safeParse(conversationId);
      if (!id.success)
        throw new CliError(id.error.issues[0]?.message ?? 'invalid conversation id', {
          exitCode: exitCodes.usage,
        });
      if (!flags.yes)
        throw new CliError(
          `deleting conversation ${conversationId} removes its turns' histories for good: add --yes to do it`,
          { exitCode: exitCodes.usage },
        );
      process.exitCode = await withClient({
        setup,
        run: async (connected) => {
          output.progress(`deleting conversation ${conversationId} (a running turn is cancelled first)…`);
          const { turns } = await new ConversationClient(connected.client)
            .delete(conversationId)
            .catch((error: unknown) => {
              if (ConversationRefusedError.isInstance(error))
                throw new CliError(error.message, { cause: error });
              throw error;
            });
          if (output.json) output.jsonLine({ conversationId, deleted: true, turns });
          else
            output.result(
              `conversation ${conversationId} deleted, with its ${turns} turn${turns === 1 ? '' : 's'}`,
            );
          return exitCodes.ok;
        },
      });
    });
}
