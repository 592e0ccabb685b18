import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** The Chromium to drive: `DURABLE_TURNS_CHROMIUM`, else `chromium` on the PATH (Debian's package). */
export function chromiumPath(): string {
  const fromEnv = process.env.DURABLE_TURNS_CHROMIUM;
  if (fromEnv) {
    if (!existsSync(fromEnv))
      throw new Error(
        `DURABLE_TURNS_CHROMIUM is ${fromEnv}, which does not exist: point it at a Chromium binary`,
      );
    return fromEnv;
  }
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      'no chromium on the PATH for the browser tests: install it (`sudo apt-get install chromium` on Debian; .ci/run does) or set DURABLE_TURNS_CHROMIUM to a Chromium binary',
    );
  }
}

/** Headless Chromium through playwright-core: no browser download, the system's own. */
export function launchChromium(): Promise<Browser> {
  // No sandbox: CI runs as root in a container, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'], headless: true });
}
