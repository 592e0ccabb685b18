import { z } from 'zod';
import { DurableTurnsError } from '../errors/durable-turns-error';

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
