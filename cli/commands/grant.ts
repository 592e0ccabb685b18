import type { Command } from 'commander';
import { z } from 'zod';
import { approvalGrantSchema, formatIssues, grantIdSchema } from '../../core';
import { approverName } from '../approver-name';
import { CliError } from '../cli-error';
import { commandSetup, withClient } from '../command-setup';
import { exitCodes } from '../exit-codes';
import { collect, matchersOf, matchFlagsHelp } from '../grant-flags';
import { parseFlags } from '../parse-flags';
import { shellQuote } from '../render/answer-commands';
import { coveredText } from '../render/grant-text';
import { runningTurn, unlessRefused } from '../turn-update';

const grantFlagsSchema = z.object({
  match: z.array(z.string()).default([]),
  matchPattern: z.array(z.string()).default([]),
  id: grantIdSchema.optional(),
  scope: z.enum(['turn', 'conversation']).default('turn'),
  reason: z.string().min(1).max(2_000).optional(),
  as: z.string().min(1).max(200).optional(),
});

/**
 * `grant`: "always allow" a tool's calls in a running turn (those whose arguments match, with
 * matchers), calls waiting now included, from whoever runs the CLI. A grant of an id already in
 * force is refused by the turn: revoke it first.
 */
export function registerGrantCommand({ program }: { program: Command }): void {
  program
    .command('grant')
    .description(
      "always allow a tool's calls in a running turn: those that match run without asking (waiting ones at once), each recorded as approved by the grant, until revoke",
    )
    .argument('<turn-id>', 'the turn')
    .argument('<tool>', "the tool's name (as run, watch and show name its calls)")
    .option('--match <path=value>', matchFlagsHelp.match, collect)
    .option('--match-pattern <path=regex>', matchFlagsHelp.matchPattern, collect)
    .option('--id <grant-id>', "the grant's id, to revoke it by (default: the tool's name)")
    .option(
      '--scope <scope>',
      "turn (default): for the rest of this turn; conversation: its conversation's later turns start with it too",
    )
    .option('--reason <text>', 'why (kept in the journal with the grant)')
    .option('--as <name>', 'who grants, kept in the journal (default: your OS user name)')
    .action(async (turnId: string, toolName: string, _values: unknown, command: Command) => {
      const setup = commandSetup({ command });
      const flags = parseFlags({ schema: grantFlagsSchema, values: command.opts() });
      const by = flags.as ?? approverName();
      // Checked before connecting: a bad matcher or name is the command line's fault, and nothing is sent.
      const parsed = approvalGrantSchema.safeParse({
        grantId: flags.id ?? toolName,
        toolName,
        match: matchersOf({ equals: flags.match, patterns: flags.matchPattern }),
        scope: flags.scope,
        via: 'cli',
        ...(flags.reason !== undefined && { reason: flags.reason }),
        ...(by !== undefined && { by }),
      });
      if (!parsed.success)
        throw new CliError(formatIssues(parsed.error, { root: 'grant' }), { exitCode: exitCodes.usage });
      const grant = parsed.data;
      process.exitCode = await withClient({
        setup,
        run: async (connected) => {
          const handle = await runningTurn({ connected, turnId, nothing: 'it takes no grant' });
          await unlessRefused({
            send: () => handle.grant(grant),
            cannot: `grant ${grant.grantId} in turn ${turnId}`,
            next: `\`${setup.context.prefix} show ${turnId}\` lists the grants in force`,
          });
          const { via: _via, ...granted } = grant;
          if (setup.output.json) setup.output.jsonLine({ turnId, ...granted });
          else
            setup.output.result(
              `granted ${grant.grantId} in turn ${turnId}: ${coveredText(grant)} run without asking; \`${setup.context.prefix} revoke ${shellQuote({ value: turnId })} ${shellQuote({ value: grant.grantId })}\` ends it`,
            );
          return exitCodes.ok;
        },
      });
    });
}
