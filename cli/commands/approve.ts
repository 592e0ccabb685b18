import type { Command } from 'commander';
import { registerDecideCommand } from './decide-call';

export function registerApproveCommand({ program }: { program: Command }): void {
  registerDecideCommand({ program, kind: 'approve' });
}
