import path from 'node:path';
import { isExecutableFile } from './is-executable-file';

/**
 * Looks `name` up in a PATH-style list of folders, like a shell would. The PATH is passed in (not
 * read here) so callers can test the "nothing installed" case with an empty one.
 */
export async function findExecutable({
  name,
  pathEnv,
}: {
  name: string;
  pathEnv: string | undefined;
}): Promise<string | undefined> {
  const fileName = process.platform === 'win32' ? `${name}.exe` : name;
  for (const folder of (pathEnv ?? '').split(path.delimiter)) {
    // An empty PATH entry means the current folder; a tool we spawn must not depend on cwd.
    if (folder === '') continue;
    const candidate = path.join(folder, fileName);
    if (await isExecutableFile({ filePath: candidate })) return candidate;
  }
  return undefined;
}
