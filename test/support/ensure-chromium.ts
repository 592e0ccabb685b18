import { execFileSync } from 'node:child_process';
import { chromiumPath } from '../dashboard/launch-chromium';

/**
 * The dashboard's browser tests drive Debian's Chromium (no browser download works here). Where it
 * is missing and this process may install packages (root, apt-get), it installs it, as a fresh
 * machine needs for `npm ci && npm test` to pass as the README says; elsewhere it fails at once,
 * naming the one command that does, instead of failing a browser test minutes later.
 */
export function ensureChromium({ log }: { log: (line: string) => void }): void {
  try {
    chromiumPath();
    return;
  } catch (missing) {
    // A Chromium named by DURABLE_TURNS_CHROMIUM that is not there is the caller's to fix.
    if (process.env.DURABLE_TURNS_CHROMIUM || process.getuid?.() !== 0 || !hasAptGet()) throw missing;
  }
  log("no chromium on the PATH for the browser tests: installing Debian's (apt-get install chromium) …");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'inherit'], env });
  execFileSync('apt-get', ['install', '-y', 'chromium'], { stdio: ['ignore', 'ignore', 'inherit'], env });
  chromiumPath();
}

function hasAptGet(): boolean {
  try {
    execFileSync('which', ['apt-get'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
