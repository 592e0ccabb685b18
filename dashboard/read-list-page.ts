import { type DashboardContext, withUpstreamDeadline } from './dashboard-context';
import { upstreamError } from './upstream-error';

/**
 * One page of a Visibility list as the API serves it: the query's cursor opened (a 400 when it is not
 * one of this dashboard's), the page read under the upstream deadline, its next cursor sealed.
 */
export async function readListPage<P extends { nextCursor?: string }>({
  context,
  cursor,
  read,
}: {
  context: DashboardContext;
  /** The query's `cursor`, as the API gave it. */
  cursor: string | undefined;
  /** The page after Visibility's own page token (none: the first page). */
  read: (token: string | undefined) => Promise<P>;
}): Promise<Omit<P, 'nextCursor'> & { nextCursor?: string }> {
  const token = cursor === undefined ? undefined : context.cursors.open({ cursor });
  const { nextCursor, ...page } = await withUpstreamDeadline({ context, fn: () => read(token) }).catch(
    (error: unknown) => {
      throw upstreamError({ error, context: context.upstream });
    },
  );
  return { ...page, ...(nextCursor && { nextCursor: context.cursors.seal({ token: nextCursor }) }) };
}
