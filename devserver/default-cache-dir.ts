import os from 'node:os';
import path from 'node:path';

/**
 * Where durable-turns keeps tools it installs (the Temporal CLI): `DURABLE_TURNS_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/durable-turns`, else `~/.cache/durable-turns`.
 */
export function defaultCacheDir({
  env = process.env,
  homeDir = os.homedir(),
}: {
  env?: NodeJS.ProcessEnv;
  homeDir?: string;
} = {}): string {
  const explicit = env.DURABLE_TURNS_CACHE_DIR?.trim();
  if (explicit) return path.resolve(explicit);
  const xdg = env.XDG_CACHE_HOME?.trim();
  if (xdg) return path.join(path.resolve(xdg), 'durable-turns');
  return path.join(homeDir, '.cache', 'durable-turns');
}
