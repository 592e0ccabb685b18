import { outputConfigOf, type TurnConfig, withGrants } from '../core';
import type { RunTurnArgs } from './in-process-executor-options';

/**
 * The executor's configuration with what a turn has of its own: its grants (a grant of the same id
 * is the turn's), its structured answer and its budget.
 */
export function withOwnChoices(
  config: TurnConfig,
  { grants, output, budget }: Pick<RunTurnArgs, 'grants' | 'output' | 'budget'>,
): TurnConfig {
  const answering = output ? { ...config, output: outputConfigOf(output) } : config;
  // A sub-agent's slice of its parent's budget, in place of the executor's.
  const own = budget ? { ...answering, budget } : answering;
  return withGrants(own, grants ?? []);
}
