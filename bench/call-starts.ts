import type { ActivityInterceptorsFactory } from '@temporalio/worker';

/**
 * When each tool activity of a workflow started, recorded on the worker by an activity interceptor
 * (give `interceptor` to every worker compared, so each pays it alike). In a sequential turn the
 * time from one call's start to the next is the per-call cost itself, without what the turn does
 * once at its start and end, which the marginal cost of a whole turn also holds (its last model
 * request reads every output, its result packs every event). Both are reported: the marginal cost
 * is the target's measure, the cycle says how much of it the calls themselves are, with a far
 * tighter interval (hundreds of calls a run instead of one difference of two turns a round).
 */
export class CallStarts {
  private readonly starts = new Map<string, number[]>();

  constructor(private readonly activityTypes: ReadonlySet<string>) {}

  readonly interceptor: ActivityInterceptorsFactory = (ctx) => ({
    inbound: {
      execute: (input, next) => {
        const { activityType, workflowExecution } = ctx.info;
        if (this.activityTypes.has(activityType) && workflowExecution) {
          const at = performance.now();
          const list = this.starts.get(workflowExecution.workflowId);
          if (list) list.push(at);
          else this.starts.set(workflowExecution.workflowId, [at]);
        }
        return next(input);
      },
    },
  });

  /**
   * The mean time from one call's start to the next in this workflow (ms), undefined with fewer than
   * two calls; the workflow is forgotten.
   */
  meanCycleMs(workflowId: string): number | undefined {
    const list = this.starts.get(workflowId) ?? [];
    this.starts.delete(workflowId);
    const first = list[0];
    const last = list[list.length - 1];
    if (list.length < 2 || first === undefined || last === undefined) return undefined;
    return (last - first) / (list.length - 1);
  }
}
