import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  type ClientConfigProfile,
  loadClientConfigFromToml,
  loadClientConfigProfile,
} from '@temporalio/envconfig';
import { errorMessage } from './error-message';

export interface LoadedConnectionProfile {
  /** The file's profile with the environment applied over it, by `@temporalio/envconfig`. */
  profile: ClientConfigProfile;
  /** What the file alone said: empty without a file or without that profile. */
  fromFile: ClientConfigProfile;
  /** The profile's name and file, to name them in messages. */
  name: string;
  file: string;
}

/**
 * The Temporal CLI's client profile (`TEMPORAL_CONFIG_FILE`, else the CLI's default file; profile
 * `TEMPORAL_PROFILE`, else `default`) with the environment applied over it. Problems come back as
 * sentences that say what to fix: on its own `@temporalio/envconfig` ignores a
 * `TEMPORAL_CONFIG_FILE` that does not exist, reports bad TOML without naming the file, and fails
 * with a TypeError on a file that has no profile.
 */
export function loadConnectionProfile({
  env,
}: {
  env: Record<string, string>;
}): LoadedConnectionProfile | { problems: string[] } {
  const explicit = env.TEMPORAL_CONFIG_FILE;
  const file = explicit ?? defaultConfigFile({ env });
  const name = env.TEMPORAL_PROFILE ?? 'default';
  const data = file === undefined ? undefined : readConfigFile({ file, explicit: explicit !== undefined });
  if (typeof data === 'string') return { problems: [data] };

  let profiles: Record<string, ClientConfigProfile> = {};
  if (data !== undefined) {
    try {
      profiles = loadClientConfigFromToml(data, { strict: false }).profiles;
    } catch (error) {
      // A file without any [profile.*] table: the library reads `.profile` of undefined.
      if (!(typeof error === 'object' && error !== null && 'name' in error && error.name === 'TypeError'))
        return { problems: [`${file} is not a valid Temporal config file: ${errorMessage({ error })}`] };
    }
  }
  const fromFile = profiles[name];
  if (fromFile === undefined && env.TEMPORAL_PROFILE !== undefined) {
    const known = Object.keys(profiles);
    const where =
      data === undefined
        ? `there is no config file (looked for ${file ?? 'one, but HOME is unset'})`
        : `${file} has no [profile.${name}]${known.length > 0 ? ` (it has ${known.join(', ')})` : ''}`;
    return {
      problems: [
        `TEMPORAL_PROFILE is ${JSON.stringify(name)} but ${where}: set TEMPORAL_PROFILE to a profile ` +
          'that exists (and TEMPORAL_CONFIG_FILE to its file), or unset TEMPORAL_PROFILE',
      ],
    };
  }

  try {
    const profile = loadClientConfigProfile({
      overrideEnvVars: env,
      ...(fromFile === undefined || data === undefined ? { disableFile: true } : { configSource: { data } }),
    });
    return { profile, fromFile: fromFile ?? {}, name, file: file ?? '' };
  } catch (error) {
    return { problems: [`profile ${JSON.stringify(name)} in ${file}: ${errorMessage({ error })}`] };
  }
}

/** The file's bytes; undefined for a default file that does not exist; a problem as a string. */
function readConfigFile({
  file,
  explicit,
}: {
  file: string;
  explicit: boolean;
}): Uint8Array | string | undefined {
  try {
    return readFileSync(file);
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
    if (code === 'ENOENT' && !explicit) return undefined;
    if (code === 'ENOENT')
      return `TEMPORAL_CONFIG_FILE points to ${file}, which does not exist: fix the path or unset TEMPORAL_CONFIG_FILE`;
    const subject = explicit
      ? `TEMPORAL_CONFIG_FILE points to ${file}, which`
      : `The Temporal CLI config file ${file}`;
    return `${subject} cannot be read (${code || errorMessage({ error })}): fix its permissions or set TEMPORAL_CONFIG_FILE to another file`;
  }
}

/**
 * Where `@temporalio/envconfig` looks without `TEMPORAL_CONFIG_FILE` (it does not export this).
 * Reading the file here, not there, lets us tell "no file" from "unreadable file".
 */
function defaultConfigFile({ env }: { env: Record<string, string> }): string | undefined {
  const file = ['temporalio', 'temporal.toml'];
  if (os.platform() === 'win32') return env.APPDATA && path.join(env.APPDATA, ...file);
  if (os.platform() === 'darwin')
    return env.HOME && path.join(env.HOME, 'Library', 'Application Support', ...file);
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg) return path.isAbsolute(xdg) ? path.join(xdg, ...file) : undefined;
  return env.HOME && path.join(env.HOME, '.config', ...file);
}
