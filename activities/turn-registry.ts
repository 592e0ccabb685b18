import type { Context } from '@temporalio/activity';
import { pinToolsetUpdate } from '../contract/turn-workflow';
import type { ToolRegistry } from '../core';
import type { ActivityDeps } from './activity-support';

/**
 * The tools of the turn whose workflow is `workflowId`: the worker's own, and, when the worker has
 * servers that list tools at run time (MCP), the list the turn pinned. The first request or
 * attempt of a turn on this worker offers what its servers list now; the workflow keeps the first
 * offer of the turn and answers every later one with it.
 */
export async function turnRegistry({
  deps,
  ctx,
  workflowId,
}: {
  deps: ActivityDeps;
  ctx: Context;
  workflowId: string;
}): Promise<ToolRegistry> {
  if (!deps.toolsets) return deps.registry;
  const workflow = ctx.client.workflow.getHandle(workflowId);
  // As for the model request's reads: a worker shutting down takes no workflow task, so the wait
  // ends with the activity's cancel rather than holding the shutdown.
  return deps.toolsets.registryFor(workflowId, (offered) =>
    Promise.race([workflow.executeUpdate(pinToolsetUpdate, { args: [offered] }), ctx.cancelled]),
  );
}
