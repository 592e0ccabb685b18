import { constants, promises as fs } from 'node:fs';

/** True when `filePath` is a regular file this process may execute. */
export async function isExecutableFile({ filePath }: { filePath: string }): Promise<boolean> {
  try {
    const stat = await fs.stat(filePath);
    if (!stat.isFile()) return false;
    await fs.access(filePath, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
