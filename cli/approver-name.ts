import { userInfo } from 'node:os';

/**
 * Who a decision made at this terminal comes from when `--as` does not say: the OS user; a
 * container's uid may have no name (userInfo throws), then USER; else nobody is named.
 */
export function approverName({
  env = process.env,
  osUser = () => userInfo().username,
}: {
  env?: NodeJS.ProcessEnv;
  osUser?: () => string;
} = {}): string | undefined {
  let name: string | undefined;
  try {
    name = osUser();
  } catch {
    name = undefined;
  }
  // The journal keeps at most 200 characters of a name.
  return (name || env.USER || undefined)?.slice(0, 200);
}
