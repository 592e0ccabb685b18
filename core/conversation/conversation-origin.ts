import { z } from 'zod';
import { type ForkPoint, forkPointSchema, forkPrefix } from '../engine/fork-turn';
import type { TurnStart } from '../engine/start-entries';
import type { TurnResult } from '../engine/turn-outcome';
import { DurableTurnsError } from '../errors/durable-turns-error';
import { transcriptEventSchema } from '../schema/journal-entry';
import { messageSchema, type UserMessage } from '../schema/messages';
import type { ToolOutput } from '../schema/tool-output';
import { conversationTurnId } from './conversation-turn-id';

/**
 * Where a branch of a conversation comes from (`ConversationClient.branch`): the turns of other
 * conversations that come before its own, newest source first. A branch of `a` after its turn 2 has
 * `[{ conversationId: 'a', turns: 2 }]`; a branch of that branch after its turn 1 has
 * `[{ conversationId: 'b', turns: 1 }, { conversationId: 'a', turns: 2 }]`. Its turns read those
 * turns by reference (as they read their own conversation's earlier turns), never copied.
 */
export const conversationOriginSchema = z
  .array(
    z.object({
      conversationId: z.string().min(1),
      /** Which conversation of that id (`ConversationState.incarnation`), when it had one. */
      incarnation: z.string().min(1).optional(),
      /** Its turns 1 to `turns` come before (0: none of its turns, only what it came from). */
      turns: z.number().int().nonnegative(),
    }),
  )
  .max(64);
export type ConversationOrigin = z.infer<typeof conversationOriginSchema>;

/**
 * The origin of a branch of `source` after its turn `afterTurn`: that source's turns up to there,
 * then whatever the source itself came from. Refused (nothing starts) when `afterTurn` is not a turn
 * of the source that ended, or the chain of branches grows past what a request may walk.
 */
export function branchOrigin({
  source,
  afterTurn,
}: {
  source: {
    conversationId: string;
    incarnation?: string;
    /** Its turns that ended (a running turn cannot be branched from: its end is not known). */
    endedTurns: number;
    origin?: ConversationOrigin;
  };
  afterTurn: number;
}): ConversationOrigin {
  if (!Number.isInteger(afterTurn) || afterTurn < 0 || afterTurn > source.endedTurns)
    throw new DurableTurnsError(
      `conversation ${source.conversationId} has ${source.endedTurns} ended turn${source.endedTurns === 1 ? '' : 's'}: a branch goes after one of them (0 to ${source.endedTurns}), not after ${afterTurn}`,
      { code: 'invalid-branch-point' },
    );
  const origin = [
    {
      conversationId: source.conversationId,
      ...(source.incarnation ? { incarnation: source.incarnation } : {}),
      turns: afterTurn,
    },
    ...(source.origin ?? []),
  ];
  const parsed = conversationOriginSchema.safeParse(origin);
  if (!parsed.success)
    throw new DurableTurnsError(
      `conversation ${source.conversationId} is a branch of a branch ${source.origin?.length ?? 0} deep: a branch of it would be deeper than 64`,
      { code: 'invalid-branch-point' },
    );
  return parsed.data;
}

/**
 * A branch whose first turn is a fork of a turn of its source, cut inside it (`forkPrefix`): that
 * turn's input and its record up to the point, which the branch's turn 1 begins with (its first
 * message is the user's next word after them). Dropped once turn 1 starts.
 */
export const branchForkSchema = z.object({
  from: z.string().min(1),
  point: forkPointSchema,
  input: z.array(messageSchema).min(1),
  events: z.array(transcriptEventSchema),
});
export type BranchFork = z.infer<typeof branchForkSchema>;

/**
 * The fork a branch's first turn begins with: turn `source` (ended) cut at `at`, with edited outputs
 * of calls before the point. Throws what is wrong with the point or an edit (see `forkPrefix`).
 */
export function branchFork({
  from,
  source,
  at,
  outputs,
}: {
  from: string;
  source: Pick<TurnResult, 'events'>;
  at: ForkPoint;
  outputs?: Readonly<Record<string, ToolOutput>>;
}): BranchFork {
  const started = source.events[0];
  if (started?.type !== 'turn.started')
    throw new DurableTurnsError(`cannot fork turn ${from}: its record has no start`, {
      code: 'invalid-branch-point',
    });
  const events = forkPrefix(source.events, at, outputs ? { outputs } : {});
  return { from, point: at, input: started.input, events };
}

/** The messages a branch's first turn was sent, as the one next word its fork takes. */
export function oneUserMessage(messages: readonly UserMessage[]): UserMessage {
  const [first, ...rest] = messages;
  if (!first) throw new Error('a turn starts with at least one message');
  if (rest.length === 0) return first;
  const parts = messages.flatMap((m) =>
    typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content,
  );
  return { role: 'user', content: parts };
}

/**
 * What a conversation's turn starts with: its messages; for a branch's forked turn 1 (`fork`), the
 * source turn's input and its record, its messages the user's next word after them.
 */
export function turnStartOf({
  messages,
  fork,
}: {
  messages: readonly { message: UserMessage }[];
  fork?: BranchFork;
}): { input: UserMessage[] | BranchFork['input']; fork?: NonNullable<TurnStart['fork']> } {
  const sent = messages.map((m) => m.message);
  if (!fork) return { input: sent };
  const { from, point, events, input } = fork;
  return { input, fork: { from, point, events, message: oneUserMessage(sent) } };
}

/**
 * The source turn a branch's first turn forks (`fork`): the turn after `afterTurn`, which must have
 * ended. Refused (nothing starts) otherwise.
 */
export function forkedTurnOf({
  source,
  afterTurn,
}: {
  source: { conversationId: string; endedTurns: number };
  afterTurn: number;
}): string {
  const forked = afterTurn + 1;
  if (forked > source.endedTurns)
    throw new DurableTurnsError(
      `conversation ${source.conversationId} has ${source.endedTurns} ended turn${source.endedTurns === 1 ? '' : 's'}: a branch that forks the turn after ${afterTurn} needs turn ${forked} to have ended`,
      { code: 'invalid-branch-point' },
    );
  return conversationTurnId(source.conversationId, forked);
}

/**
 * Whether a conversation a branch came from is still the one it came from: refused (the branch's
 * request fails, saying why) when it is gone, or its id was begun again (another incarnation).
 * `current` is that conversation's incarnation now (null: it has none recorded; undefined: gone).
 */
export function checkOriginAgainst(
  origin: ConversationOrigin[number],
  current: string | null | undefined,
): void {
  if (current === undefined)
    throw new DurableTurnsError(
      `conversation ${origin.conversationId}, which this branch came from, is gone (deleted): its turns cannot be read`,
      { code: 'branch-source-gone' },
    );
  if (origin.incarnation !== undefined && current !== null && current !== origin.incarnation)
    throw new DurableTurnsError(
      `conversation ${origin.conversationId}, which this branch came from, was deleted and its id begun again: its turns now are another conversation's`,
      { code: 'branch-source-gone' },
    );
}

/** How many of a conversation's turns have ended (a running turn is its last started). */
export function endedTurns({ turnCount, running }: { turnCount: number; running?: unknown }): number {
  return running ? turnCount - 1 : turnCount;
}

/**
 * The turns a conversation's transcript is made of, in order: those of what it branched from (its
 * first source's first), then its own that ended.
 */
export function transcriptTurnIds(state: {
  conversationId: string;
  turnCount: number;
  running?: unknown;
  origin?: ConversationOrigin;
}): string[] {
  const spans = [...(state.origin ?? [])].reverse();
  spans.push({ conversationId: state.conversationId, turns: endedTurns(state) });
  return spans.flatMap((span) =>
    Array.from({ length: span.turns }, (_, n) => conversationTurnId(span.conversationId, n + 1)),
  );
}
