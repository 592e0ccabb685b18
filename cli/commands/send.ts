import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { z } from 'zod';
import { ConversationClient } from '../../client/conversation-client';
import { ConversationRefusedError, sendPolicySchema, threadIdSchema } from '../../core';
import { CliError } from '../cli-error';
import { commandSetup, withClient } from '../command-setup';
import { exitCodes } from '../exit-codes';
import { parseFlags } from '../parse-flags';

const sendFlagsSchema = z.object({
  model: z
    .string()
    .min(1, 'name a model the worker has (see `durable-turns dev` or the agent module)')
    .optional(),
  policy: sendPolicySchema.default('enqueue'),
  messageId: z.string().min(1).max(256).optional(),
});

export function registerSendCommand({ program }: { program: Command }): void {
  program
    .command('send')
    .description(
      "send a message to a conversation (created by its first message): it starts a turn, or waits, steers or interrupts the running one as --policy says; prints where it stands (the turn's id, or its place in line) and returns",
    )
    .argument('<conversation-id>', 'the conversation')
    .argument('<message>', "the user's message")
    .option(
      '--model <name>',
      "the model the conversation's turns ask (read when this message creates it; without it the message goes only to a conversation that exists)",
    )
    .option('--policy <policy>', 'while a turn runs: enqueue (default), reject, interrupt or steer')
    .option(
      '--message-id <id>',
      'the message id (default: a new one); a retried send with it is the same message',
    )
    .action(
      async (conversationId: string, message: string, values: Record<string, unknown>, command: Command) => {
        const setup = commandSetup({ command });
        const flags = parseFlags({ schema: sendFlagsSchema, values });
        const { output, context } = setup;
        const id = threadIdSchema.safeParse(conversationId);
        if (!id.success)
          throw new CliError(id.error.issues[0]?.message ?? 'invalid conversation id', {
            exitCode: exitCodes.usage,
          });
        if (message.trim() === '')
          throw new CliError('the message is empty: say what the turn should do', {
            exitCode: exitCodes.usage,
          });
        const messageId =
          flags.messageId ?? `msg-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
        process.exitCode = await withClient({
          setup,
          run: async (connected) => {
            const receipt = await new ConversationClient(connected.client)
              .send(conversationId, message, {
                messageId,
                policy: flags.policy,
                ...(flags.model ? { turn: { model: flags.model } } : {}),
              })
              .catch((error: unknown) => {
                if (ConversationRefusedError.isInstance(error))
                  throw new CliError(error.message, { cause: error });
                throw error;
              });
            if (output.json) output.jsonLine({ conversationId, ...receipt });
            else if (receipt.status === 'queued')
              output.result(
                `message ${messageId} is queued: ${receipt.ahead} turn${receipt.ahead === 1 ? '' : 's'} ahead of it`,
              );
            else if (receipt.status === 'dropped')
              output.result(`message ${messageId} was dropped: the conversation was closed before it ran`);
            else if (receipt.status === 'blocked')
              output.result(`message ${messageId} was blocked: ${receipt.reason}`);
            else
              output.result(
                `message ${messageId} ${receipt.status === 'steered' ? 'steered into' : 'started'} turn ${receipt.turnId}; \`${context.prefix} watch ${receipt.turnId}\` follows it`,
              );
            return exitCodes.ok;
          },
        });
      },
    );
}
