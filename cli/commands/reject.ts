import type { Command } from 'commander';
import { registerDecideCommand } from './decide-call';

export function registerRejectCommand({ program }: { program: Command }): void {
  registerDecideCommand({ program, kind: 'reject' });
}
