import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { z } from 'zod';
import { ConversationClient } from '../../client/conversation-client';
import { conversationTurnId, DurableTurnsError, threadIdSchema } from '../../core';
import { CliError } from '../cli-error';
import { commandSetup, withClient } from '../command-setup';
import { exitCodes } from '../exit-codes';
import { findTurn } from '../find-turn';
import { forkFlagsHelp, forkPointOf, forkPointText } from '../fork-flags';
import { checkForkPoint, readForkSource } from '../fork-source';
import { parseFlags } from '../parse-flags';

const branchFlagsSchema = z.object({
  after: z.coerce
    .number()
    .int('--after is a turn number')
    .nonnegative('--after is a turn number (0 or more)'),
  to: threadIdSchema.optional(),
  model: z.string().min(1).optional(),
  fork: z.string().min(1).optional(),
});

/**
 * `branch`: a new conversation after a turn of another (`ConversationClient.branch`): its turns read
 * the source's up to there by reference. Its model is the source's (that turn's) unless named.
 */
export function registerBranchCommand({ program }: { program: Command }): void {
  program
    .command('branch')
    .description(
      "start a new conversation after a turn of another: its turns read the source's turns up to there (nothing runs again, nothing is copied); `send` its first message",
    )
    .argument('<conversation-id>', 'the source conversation')
    .requiredOption('--after <n>', 'after which of its ended turns (from 1; 0: before its first)')
    .option('--to <id>', 'the new conversation id (default: <conversation-id>-branch-<random>)')
    .option('--model <name>', "the model its turns ask (default: the source's, as its first turn recorded)")
    .option(
      '--fork <at>',
      `its turn 1 forks the source's turn after --after, at: ${forkFlagsHelp.at.replace(/^where the fork starts: /, '')}`,
    )
    .action(async (from: string, values: Record<string, unknown>, command: Command) => {
      const setup = commandSetup({ command });
      const flags = parseFlags({ schema: branchFlagsSchema, values });
      const fork = flags.fork === undefined ? undefined : { at: forkPointOf(flags.fork, '--fork') };
      const conversationId = flags.to ?? `${from}-branch-${randomBytes(3).toString('hex')}`;
      process.exitCode = await withClient({
        setup,
        run: async (connected) => {
          const model = flags.model ?? (await sourceModel({ connected, from }));
          // The turn it forks, checked in the command line's words (responses from 1).
          if (fork) {
            const forked = conversationTurnId(from, flags.after + 1);
            const { result } = await readForkSource({ connected, turnId: forked, context: setup.context });
            checkForkPoint({ source: result, at: fork.at, flag: '--fork' });
          }
          const branched = await new ConversationClient(connected.client)
            .branch(from, { conversationId, afterTurn: flags.after, turn: { model }, ...(fork && { fork }) })
            .catch((error: unknown) => {
              if (DurableTurnsError.isInstance(error)) throw new CliError(error.message, { cause: error });
              throw error;
            });
          if (setup.output.json) setup.output.jsonLine({ ...branched, from, afterTurn: flags.after, model });
          else
            setup.output.result(
              `conversation ${conversationId} branched from ${from} after turn ${flags.after}${fork ? `, its turn 1 a fork of turn ${flags.after + 1} ${forkPointText(fork.at)}` : ''}; \`${setup.context.prefix} send ${conversationId} '…'\` begins it`,
            );
          return exitCodes.ok;
        },
      });
    });
}

/** The source's model, as its first turn recorded it (every turn of a conversation asks the same). */
async function sourceModel({
  connected,
  from,
}: {
  connected: Parameters<typeof findTurn>[0]['connected'];
  from: string;
}): Promise<string> {
  const turnId = conversationTurnId(from, 1);
  const found = await findTurn({ connected, turnId }).catch(() => undefined);
  if (found?.model) return found.model;
  throw new CliError(
    `the model of conversation ${from} is not known (turn ${turnId} names none): name one with --model`,
    {
      exitCode: exitCodes.usage,
    },
  );
}
