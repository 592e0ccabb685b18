import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';
import { installTraceContext } from './install-trace-context';
import type { TurnTracing } from './turn-tracing';
import { workflowSpanSinks } from './workflow-span-sink';

/**
 * What a turn worker adds to its Temporal worker options for tracing, merged into `given` (the
 * caller's own interceptors and sinks stay, ours after theirs): the sink workflow spans leave
 * through (always: a turn started by a traced client is traced in its workflow whatever the worker), and with tracing on Temporal's activity interceptors — a
 * span per activity, a child of the workflow's, under which the activity's spans are made — and its
 * client interceptor for the queries and updates activities send their turn.
 */
export function workerTracingOptions({
  tracing,
  given = {},
}: {
  tracing: TurnTracing | undefined;
  given?: Pick<WorkerOptions, 'interceptors' | 'sinks'>;
}): Required<Pick<WorkerOptions, 'interceptors' | 'sinks'>> {
  const sinks = { ...given.sinks, ...workflowSpanSinks({ tracing }) };
  const interceptors = given.interceptors ?? {};
  if (!tracing) return { sinks, interceptors };
  installTraceContext();
  const { tracer } = tracing;
  return {
    sinks,
    interceptors: {
      ...interceptors,
      activity: [
        ...(interceptors.activity ?? []),
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
      client: {
        ...interceptors.client,
        workflow: [
          ...workflowClientInterceptors(interceptors.client?.workflow),
          new OpenTelemetryWorkflowClientInterceptor({ tracer }),
        ],
      },
    },
  };
}

/** The older form of client interceptors is an object of factories; only the list form merges. */
function workflowClientInterceptors<T>(given: T[] | object | undefined): T[] {
  if (given === undefined) return [];
  if (Array.isArray(given)) return given;
  throw new Error(
    'tracing needs worker.interceptors.client.workflow as a list of interceptors; pass yours as a list, not the deprecated factory object',
  );
}
