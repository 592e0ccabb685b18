import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { z } from 'zod';
import { sendPolicySchema, threadIdSchema } from '../../core';
import { runChat } from '../chat/run-chat';
import { commandSetup, withClient } from '../command-setup';
import { parseFlags } from '../parse-flags';

const chatFlagsSchema = z.object({
  conversation: threadIdSchema.optional(),
  model: z.string().min(1, 'name a model the worker has (see `durable-turns dev` or the agent module)'),
  policy: sendPolicySchema.default('steer'),
});

export function registerChatCommand({ program }: { program: Command }): void {
  program
    .command('chat')
    .description(
      'an interactive conversation: type a message, watch its turn live, type again while it runs (it steers the turn by default); /help lists the commands (cancel, approve, reject, policy, close, quit)',
    )
    .option('--conversation <id>', 'the conversation to join or start (default: a new one)')
    .requiredOption('--model <name>', "the model the conversation's turns ask (read when it is created)")
    .option(
      '--policy <policy>',
      'what a message typed while a turn runs does: steer (default), enqueue, interrupt or reject',
    )
    .action(async (values: Record<string, unknown>, command: Command) => {
      const setup = commandSetup({ command });
      const flags = parseFlags({ schema: chatFlagsSchema, values });
      const conversationId =
        flags.conversation ?? `chat-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
      process.exitCode = await withClient({
        setup,
        run: (connected) =>
          runChat({
            client: connected.client,
            conversationId,
            model: flags.model,
            policy: flags.policy,
            output: setup.output,
            context: setup.context,
          }),
      });
    });
}
