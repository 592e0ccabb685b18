import type { Command } from 'commander';
import { z } from 'zod';
import { grantIdSchema } from '../../core';
import { approverName } from '../approver-name';
import { CliError } from '../cli-error';
import { commandSetup, withClient } from '../command-setup';
import { exitCodes } from '../exit-codes';
import { parseFlags } from '../parse-flags';
import { runningTurn, unlessRefused } from '../turn-update';

const revokeFlagsSchema = z.object({ as: z.string().min(1).max(200).optional() });

/** `revoke`: ends a grant of a running turn; the tool's next calls ask again (those it let run stay approved). */
export function registerRevokeCommand({ program }: { program: Command }): void {
  program
    .command('revoke')
    .description(
      "end a grant of a running turn: the tool's next calls ask again (those it let run stay approved)",
    )
    .argument('<turn-id>', 'the turn')
    .argument('<grant-id>', "the grant's id (shown by grant and show)")
    .option('--as <name>', 'who revokes, kept in the journal (default: your OS user name)')
    .action(async (turnId: string, grantId: string, _values: unknown, command: Command) => {
      const setup = commandSetup({ command });
      const flags = parseFlags({ schema: revokeFlagsSchema, values: command.opts() });
      if (!grantIdSchema.safeParse(grantId).success)
        throw new CliError('<grant-id>: 1 to 300 characters', { exitCode: exitCodes.usage });
      const by = flags.as ?? approverName();
      process.exitCode = await withClient({
        setup,
        run: async (connected) => {
          const handle = await runningTurn({ connected, turnId, nothing: 'there is no grant to revoke' });
          await unlessRefused({
            send: () => handle.revoke(grantId, { via: 'cli', ...(by !== undefined && { by }) }),
            cannot: `revoke grant ${grantId} of turn ${turnId}`,
            next: `\`${setup.context.prefix} show ${turnId}\` lists the grants in force`,
          });
          if (setup.output.json)
            setup.output.jsonLine({ turnId, grantId, revoked: true, ...(by !== undefined && { by }) });
          else
            setup.output.result(`revoked grant ${grantId} of turn ${turnId}: the calls it allowed ask again`);
          return exitCodes.ok;
        },
      });
    });
}
