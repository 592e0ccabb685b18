import type { ApprovalGrant, ArgumentMatcher } from '../../core';
import type { Colors } from '../output';
import { type CommandContext, shellQuote } from './answer-commands';
import { clip } from './short-text';

/** `target = "staging"`, `target ~ /^prod-/`: one matcher as the CLI says it. */
export function matcherText(matcher: ArgumentMatcher): string {
  if (matcher.pattern !== undefined) return `${matcher.path} ~ /${matcher.pattern}/`;
  return `${matcher.path} = ${clip({ text: JSON.stringify(matcher.equals) ?? 'undefined', max: 60 })}`;
}

/** `target = "staging" and mode ~ /^dry/`: every matcher, all of which must hold. */
export const matchersText = (match: ArgumentMatcher[]): string => match.map(matcherText).join(' and ');

/** What a grant lets run without asking: `deploy calls where target = "staging"`, `every deploy call`. */
export function coveredText(grant: Pick<ApprovalGrant, 'toolName' | 'match'>): string {
  if (grant.match.length === 0) return `every ${grant.toolName} call`;
  return `${grant.toolName} calls where ${matchersText(grant.match)}`;
}

/** `2026-12-05 07:59:32 UTC`, as `list` and the dashboard say a moment. */
export const utcTime = (ms: number): string =>
  `${new Date(ms).toISOString().replace('T', ' ').slice(0, 19)} UTC`;

/** `by alice via cli at 2026-12-05 07:59:32 UTC`: who took the grant, through what and when, as far as known. */
export function grantOrigin(grant: {
  by?: string | undefined;
  via?: string | undefined;
  at?: number | undefined;
}): string {
  return [
    grant.by !== undefined && `by ${grant.by}`,
    grant.via !== undefined && `via ${grant.via}`,
    grant.at !== undefined && `at ${utcTime(grant.at)}`,
  ]
    .filter((part): part is string => typeof part === 'string')
    .join(' ');
}

/**
 * The grants in force, for `show`: each with its id, what it covers, who took it and when, its
 * reason, and the command that revokes it (none once the turn has ended: nothing can be revoked).
 */
export function grantLines({
  grants,
  turnId,
  colors,
  context,
  ended = false,
}: {
  grants: ApprovalGrant[] | undefined;
  turnId: string;
  colors: Colors;
  context: CommandContext;
  ended?: boolean;
}): string[] {
  if (!grants?.length) return [];
  const lines = [
    ended
      ? 'grants in force when it ended:'
      : `grants in force (${grants.length === 1 ? 'its calls run' : 'their calls run'} without asking):`,
  ];
  for (const grant of grants) {
    const origin = grantOrigin(grant);
    lines.push(
      `  ${colors.bold(grant.grantId)}  ${coveredText(grant)}${grant.scope === 'conversation' ? ' (for the conversation)' : ''}${origin ? colors.dim(`  ${origin}`) : ''}`,
    );
    if (grant.reason) lines.push(`      reason: ${clip({ text: grant.reason, max: 120 })}`);
    if (!ended)
      lines.push(
        `      ${colors.magenta('revoke:')} ${context.prefix} revoke ${shellQuote({ value: turnId })} ${shellQuote({ value: grant.grantId })}`,
      );
  }
  return lines;
}
