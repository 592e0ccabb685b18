import type { Command } from 'commander';
import { z } from 'zod';
import { turnStatusSchema } from '../../core';
import { commandSetup, withClient } from '../command-setup';
import { countFlagSchema } from '../duration-flag';
import { exitCodes } from '../exit-codes';
import { parseFlags } from '../parse-flags';
import { formatMs, shortId } from '../render/short-text';

const listFlagsSchema = z.object({
  status: z
    .enum(['running', ...turnStatusSchema.options], {
      error: `expected one of running, ${turnStatusSchema.options.join(', ')}`,
    })
    .optional(),
  conversation: z.string().min(1).optional(),
  waitingForApproval: z.boolean().optional(),
  limit: countFlagSchema.default(20),
});

export function registerListCommand({ program }: { program: Command }): void {
  program
    .command('list')
    .description(
      'list turns, newest first (Temporal visibility: a turn shows up there within about a second)',
    )
    .option('--status <status>', `running, ${turnStatusSchema.options.join(', ')}`)
    .option('--conversation <id>', 'only the turns of this conversation')
    .option('--waiting-for-approval', 'only turns with a call waiting for a decision')
    .option('--limit <n>', 'at most this many (default 20)')
    .action(async (values: Record<string, unknown>, command: Command) => {
      const setup = commandSetup({ command });
      const flags = parseFlags({ schema: listFlagsSchema, values });
      const { output } = setup;
      process.exitCode = await withClient({
        setup,
        run: async (connected) => {
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
          const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
          const line = (cells: string[]) =>
            cells
              .map((cell, i) => cell.padEnd(widths[i] ?? 0))
              .join('  ')
              .trimEnd();
          output.result(c.bold(line(header)));
          for (const row of rows) output.result(line(row));
          return exitCodes.ok;
        },
      });
    });
}
