import type { ConnectedClient } from './connect-client';
import type { Output } from './output';

/**
 * Says so when no worker polls the task queue: the turn would start and then wait, silently,
 * for one. A warning, not an error: a worker may be on its way (a deploy, a restart).
 */
export async function warnIfNoWorker({
  connected,
  output,
}: {
  connected: ConnectedClient;
  output: Output;
}): Promise<void> {
  const service = connected.client.client.connection.workflowService;
  const answer = await service
    .describeTaskQueue({
      namespace: connected.namespace,
      taskQueue: { name: connected.taskQueue, kind: 1 },
      taskQueueType: 1,
    })
    .catch(() => undefined);
  if (answer === undefined || (answer.pollers?.length ?? 0) > 0) return;
  output.progress(
    output.colors.yellow(
      `no worker polls task queue ${connected.taskQueue} in namespace ${connected.namespace}: the turn waits until one does. ` +
        'Start one with `durable-turns worker --agent MODULE` (or `durable-turns dev`), or pick its queue with --task-queue.',
    ),
  );
}
