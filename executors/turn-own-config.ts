import { outputConfigOf, type TurnConfig } from '../core';
import type { RunTurnArgs } from './in-process-executor-options';

/**
 * The executor's configuration with what a turn has of its own: its grants (a grant of the same id
 * is the turn's) and its structured answer.
 */
export function withOwnChoices(
  config: TurnConfig,
  { grants, output }: Pick<RunTurnArgs, 'grants' | 'output'>,
): TurnConfig {
  const own = output ? { ...config, output: outputConfigOf(output) } : config;
  if (!grants?.length) return own;
  const ids = new Set(grants.map((g) => g.grantId));
  const kept = (config.approvals.grants ?? []).filter((g) => !ids.has(g.grantId));
  return { ...own, approvals: { ...config.approvals, grants: [...kept, ...grants] } };
}
