import type { Command } from 'commander';
import { z } from 'zod';
import { turnStatusSchema } from '../../core';
import { CliError } from '../cli-error';
import { commandSetup, withClient } from '../command-setup';
import { countFlagSchema } from '../duration-flag';
import { exitCodes } from '../exit-codes';
import { listConversations } from '../list-conversations';
import { parseFlags } from '../parse-flags';
import { formatMs, shortId } from '../render/short-text';
import { tableLines } from '../render/table-lines';

const listFlagsSchema = z.object({
  status: z
    .enum(['running', ...turnStatusSchema.options], {
      error: `expected one of running, ${turnStatusSchema.options.join(', ')}`,
    })
    .optional(),
  conversation: z.string().min(1).optional(),
  waitingForApproval: z.boolean().optional(),
  limit: countFlagSchema.default(20),
  conversations: z.boolean().optional(),
});

export function registerListCommand({ program }: { program: Command }): void {
  program
    .command('list')
    .description(
      'list turns (or with --conversations, conversations), newest first (Temporal visibility: a turn shows up there within about a second)',
    )
    .option('--conversations', 'list conversations instead: their ids, open or closed, and when each began')
    .option('--status <status>', `running, ${turnStatusSchema.options.join(', ')}`)
    .option(
      '--conversation <id>',
      "only this conversation's turns (and standalone turns labelled with it); with --conversations, those whose id starts with it",
    )
    .option('--waiting-for-approval', 'only turns with a call waiting for a decision')
    .option('--limit <n>', 'at most this many (default 20)')
    .action(async (values: Record<string, unknown>, command: Command) => {
      const setup = commandSetup({ command });
      const flags = parseFlags({ schema: listFlagsSchema, values });
      const { output } = setup;
      process.exitCode = await withClient({
        setup,
        run: async (connected) => {
          if (flags.conversations) {
            if (flags.status || flags.waitingForApproval)
              throw new CliError('--status and --waiting-for-approval are for turns, not --conversations', {
                exitCode: exitCodes.usage,
              });
            await listConversations({ connected, output, limit: flags.limit, search: flags.conversation });
            return exitCodes.ok;
          }
          const turns = await connected.client.list({
            ...(flags.status && { status: flags.status }),
            ...(flags.conversation && { conversationId: flags.conversation }),
            ...(flags.waitingForApproval && { waitingForApproval: true }),
            limit: flags.limit,
          });
          if (output.json) {
            output.jsonLine({ namespace: connected.namespace, turns });
            return exitCodes.ok;
          }
          if (turns.length === 0) {
            output.progress(`no turns match in namespace ${connected.namespace}`);
            return exitCodes.ok;
          }
          const c = output.resultColors;
          const rows = turns.map((t) => [
            shortId(t.turnId),
            t.waitingForApproval ? `${t.status} (approval)` : t.status,
            t.conversationId ? shortId(t.conversationId) : '-',
            t.model ?? '-',
            t.startTime.toISOString().replace('T', ' ').slice(0, 19),
            t.closeTime ? formatMs({ ms: t.closeTime.getTime() - t.startTime.getTime() }) : '-',
            t.toolCalls === undefined ? '-' : String(t.toolCalls),
            t.tokens === undefined ? '-' : String(t.tokens),
          ]);
          const header = [
            'TURN',
            'STATUS',
            'CONVERSATION',
            'MODEL',
            'STARTED (UTC)',
            'TOOK',
            'CALLS',
            'TOKENS',
          ];
          const table = tableLines({ header, rows });
          output.result(c.bold(table.header));
          for (const row of table.rows) output.result(row);
          return exitCodes.ok;
        },
      });
    });
}
