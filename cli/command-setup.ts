import { ServiceError } from '@temporalio/client';
import type { Command } from 'commander';
import { CliError } from './cli-error';
import { type ConnectedClient, connectClient } from './connect-client';
import { type ConnectionSettings, connectionSettings } from './connection-settings';
import { type GlobalFlags, parseGlobalFlags } from './global-flags';
import { createOutput, type Output } from './output';
import { reasonOf } from './reason-of';
import type { CommandContext } from './render/answer-commands';
import { shellQuote } from './render/answer-commands';

export interface CommandSetup {
  flags: GlobalFlags;
  output: Output;
  settings: ConnectionSettings;
  /** For printed commands: the program name with the connection flags this run was given. */
  context: CommandContext;
}

/** The global flags of `command` (given before or after the command name), its output and connection. */
export function commandSetup({ command }: { command: Command }): CommandSetup {
  const flags = parseGlobalFlags({ values: command.optsWithGlobals() });
  const output = createOutput({ json: flags.json });
  const settings = connectionSettings({ flags });
  const given = [
    flags.address !== undefined && `--address ${shellQuote({ value: flags.address })}`,
    flags.namespace !== undefined && `--namespace ${shellQuote({ value: flags.namespace })}`,
    flags.taskQueue !== undefined && `--task-queue ${shellQuote({ value: flags.taskQueue })}`,
  ].filter((x): x is string => typeof x === 'string');
  return { flags, output, settings, context: { prefix: ['durable-turns', ...given].join(' ') } };
}

/** Runs `run` with a connected client, closing the connection however it ends. */
export async function withClient<T>({
  setup,
  run,
}: {
  setup: CommandSetup;
  run: (connected: ConnectedClient) => Promise<T>;
}): Promise<T> {
  const connected = await connectClient({ settings: setup.settings });
  try {
    return await run(connected);
  } catch (error) {
    // The SDK's own message ("Failed to list workflows") leaves out why; its cause says.
    if (error instanceof ServiceError)
      throw new CliError(
        `${reasonOf({ error })} (Temporal at ${connected.address}, namespace ${connected.namespace})`,
        { cause: error },
      );
    throw error;
  } finally {
    await connected.close();
  }
}
