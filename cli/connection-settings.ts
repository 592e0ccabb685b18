import { addressOrigin, type ConnectionConfig, connectionConfigFromEnv } from '../devserver';
import { CliError } from './cli-error';
import type { GlobalFlags } from './global-flags';

/** Where `durable-turns dev` listens by default, and so where the other commands look first. */
export const defaultAddress = '127.0.0.1:7233';

export interface ConnectionSettings {
  config: ConnectionConfig & { address: string };
  /** Where the address came from (a flag, a variable, a profile, the default), for messages. */
  origin: string;
}

/**
 * The connection the command uses: flags over the environment and the Temporal CLI profile
 * (`connectionConfigFromEnv`), and the dev server's default address when nothing names one.
 */
export function connectionSettings({
  flags,
  env = process.env,
}: {
  flags: GlobalFlags;
  env?: NodeJS.ProcessEnv;
}): ConnectionSettings {
  const merged: NodeJS.ProcessEnv = {
    ...env,
    ...(flags.address !== undefined && { TEMPORAL_ADDRESS: flags.address }),
    ...(flags.namespace !== undefined && { TEMPORAL_NAMESPACE: flags.namespace }),
    ...(flags.taskQueue !== undefined && { DURABLE_TURNS_TASK_QUEUE: flags.taskQueue }),
  };
  let config: ConnectionConfig;
  try {
    config = connectionConfigFromEnv(merged);
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error), { cause: error });
  }
  if (config.address === undefined) {
    return {
      config: { ...config, address: defaultAddress },
      origin:
        'the default address, where `durable-turns dev` listens; set --address or TEMPORAL_ADDRESS for another',
    };
  }
  const origin = flags.address !== undefined ? '--address' : addressOrigin({ config });
  return { config: { ...config, address: config.address }, origin };
}
