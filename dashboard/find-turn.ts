import { turnSearchAttributes } from '../contract/search-attributes';
import { turnWorkflowType } from '../contract/turn-workflow';
import { ApiError } from './api-error';
import { type DashboardContext, withUpstreamDeadline } from './dashboard-context';
import { upstreamError } from './upstream-error';

/**
 * A turn that exists, its workflow status and its model (absent for turns begun before workers
 * recorded it), or a 404 naming the id and the namespace.
 */
export async function findTurn({
  context,
  turnId,
}: {
  context: DashboardContext;
  turnId: string;
}): Promise<{ workflowStatus: string; running: boolean; closeTime?: string; model?: string }> {
  try {
    const description = await withUpstreamDeadline({
      context,
      fn: () => context.client.client.workflow.getHandle(turnId).describe(),
    });
    if (description.type !== turnWorkflowType)
      throw new ApiError(
        404,
        `no turn ${turnId} in namespace ${context.upstream.namespace}: it is a ${description.type} workflow, not a turn`,
      );
    const model = (description.searchAttributes as Record<string, unknown[] | undefined>)[
      turnSearchAttributes.model.name
    ]?.[0];
    return {
      workflowStatus: description.status.name,
      running: description.status.name === 'RUNNING',
      ...(description.closeTime && { closeTime: description.closeTime.toISOString() }),
      ...(typeof model === 'string' && { model }),
    };
  } catch (error) {
    throw upstreamError({ error, context: context.upstream, turnId });
  }
}
