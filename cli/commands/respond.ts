import type { Command } from 'commander';
import { registerDecideCommand } from './decide-call';

export function registerRespondCommand({ program }: { program: Command }): void {
  registerDecideCommand({ program, kind: 'respond' });
}
