import { Connection, WorkflowUpdateFailedError } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import {
  type Approver,
  maxRefusedDecisions,
  subAgentTurnId,
  type ToolLister,
  type TurnModel,
} from 'durable-turns';
import { ConversationClient, TurnClient, type TurnHandle } from 'durable-turns/client';
import { type CreateTurnWorkerOptions, createTurnWorker } from 'durable-turns/worker';
import { testTemporal } from '../support/temporal-env';
import { pollFor } from '../temporal/support/poll';
import type { ConformanceHarness } from './harness';
import { sleep } from './support';

let nativeConnection: NativeConnection | undefined;
let clientConnection: Connection | undefined;
let queue = 0;

/** Opens the connections the Temporal harness uses (in a `beforeAll`). */
export async function openTemporalHarness(): Promise<void> {
  const { address } = testTemporal();
  nativeConnection = await NativeConnection.connect({ address });
  clientConnection = await Connection.connect({ address });
}

export async function closeTemporalHarness(): Promise<void> {
  await clientConnection?.close();
  await nativeConnection?.close();
}

function connections(): { native: NativeConnection; client: Connection } {
  if (!nativeConnection || !clientConnection)
    throw new Error('call openTemporalHarness() in a beforeAll first');
  return { native: nativeConnection, client: clientConnection };
}

/** A worker (in this process) on a task queue of the case's own. */
async function caseWorker(spec: {
  tools: CreateTurnWorkerOptions['tools'];
  model: TurnModel;
  mcp?: ToolLister;
  hooks?: CreateTurnWorkerOptions['hooks'];
  observers?: CreateTurnWorkerOptions['observers'];
  health?: CreateTurnWorkerOptions['health'];
}) {
  const { namespace } = testTemporal();
  queue += 1;
  const taskQueue = `conformance-${process.pid}-${queue}`;
  const worker = await createTurnWorker({
    connection: connections().native,
    namespace,
    taskQueue,
    tools: spec.tools,
    ...(spec.mcp ? { mcp: spec.mcp } : {}),
    models: { [spec.model.name]: spec.model },
    ...(spec.hooks ? { hooks: spec.hooks } : {}),
    ...(spec.observers ? { observers: spec.observers } : {}),
    ...(spec.health ? { health: spec.health } : {}),
    // A worker per case: reporting to a fleet health workflow of its own queue would start one
    // per case, with its workflow tasks and signals, for nothing the case looks at.
    fleetHealth: false,
  });
  return { namespace, taskQueue, worker };
}

/**
 * Runs each case as a real turn workflow on the shared dev server, with a worker (in this process,
 * so the case's tools and observers are the ones it inspects) on a task queue of its own.
 */
export const temporalHarness: ConformanceHarness = {
  name: 'temporal',
  async start(spec) {
    const { namespace, taskQueue, worker } = await caseWorker(spec);
    const client = new TurnClient({ connection: connections().client, namespace, taskQueue });
    const running = worker.run();
    const stopWorker = async () => {
      worker.shutdown();
      await running;
    };
    const args = {
      turnId: spec.turnId,
      model: spec.model.name,
      ...(spec.dispatch ? { dispatch: spec.dispatch } : {}),
      ...(spec.budget ? { budget: spec.budget } : {}),
      ...(spec.detection ? { detection: spec.detection } : {}),
      ...(spec.approvals ? { approvals: spec.approvals } : {}),
      ...(spec.modelRetry ? { modelRetry: spec.modelRetry } : {}),
      ...(spec.timeouts ? { timeouts: spec.timeouts } : {}),
      ...(spec.limits ? { limits: spec.limits } : {}),
      ...(spec.compaction ? { compaction: spec.compaction } : {}),
      ...(spec.output ? { output: spec.output } : {}),
      timing: { heartbeatTimeoutMs: 2_000 },
    };
    const turn = await (spec.fork
      ? client.fork({ ...args, ...spec.fork })
      : client.start({ ...args, input: spec.input })
    ).catch(async (error: unknown) => {
      await stopWorker();
      throw error;
    });
    // Watchers read through the worker (queries): it stops only once they have ended.
    const watchers = new Set<Promise<void>>();
    let done = false;
    const result = turn.result().finally(() => {
      done = true;
    });
    let approving: Promise<void> = Promise.resolve();
    if (spec.approver) {
      const approver = spec.approver;
      approving = (async () => {
        const decided = new Set<string>();
        while (!done) {
          const state = await turn.state().catch(() => undefined);
          // The turn's own calls, and those its sub-agents (turns of their own) reported to it, as
          // the in-process executor's approver is asked of both: all decided on this turn.
          const waiting: Parameters<Approver>[0][] = [
            ...(state?.calls ?? []).flatMap((call) =>
              call.approval ? [{ turnId: turn.turnId, ...call.approval }] : [],
            ),
            ...(state?.subAgentApprovals ?? []).map(({ agentCallId, ...approval }) => ({
              ...approval,
              // In process the approver is told the sub-agent's own parent: here that of a child.
              ...(approval.turnId === subAgentTurnId(turn.turnId, agentCallId) && {
                parent: { turnId: turn.turnId, toolCallId: agentCallId },
              }),
            })),
          ];
          for (const request of waiting) {
            const key = `${request.turnId} ${request.toolCallId}`;
            if (decided.has(key)) continue;
            decided.add(key);
            // A decision may never come (the approval timeout case): do not let it hold the loop.
            void decideAsApprover({ approver, turn, request, done: () => done }).catch(() => {});
          }
          await sleep(50);
        }
      })();
    }
    return {
      result: result.finally(async () => {
        // The approver's last query must finish before the worker and connections go away.
        await approving;
        // Every watcher until it ends (its consumer read to the end, or stopped): on a loaded machine
        // the last query of a finished turn can take a while, and without a worker it is never
        // answered. (A consumer that stops reading calls return(), which ends its watcher too.)
        await Promise.all(watchers);
        await stopWorker();
      }),
      cancel: () => turn.cancel(),
      steer: (messageId, text) => turn.steer({ messageId, message: text }),
      grant: (grant) => turn.grant(grant),
      revoke: (grantId) => turn.revoke(grantId),
      watch: (options) =>
        (async function* () {
          let ended = () => {};
          watchers.add(
            new Promise<void>((resolve) => {
              ended = resolve;
            }),
          );
          try {
            yield* turn.watch({ intervalMs: 20, ...options });
          } finally {
            ended();
          }
        })(),
    };
  },
  async converse({ conversationId, tools, mcp, model }) {
    const { namespace, taskQueue, worker } = await caseWorker({ tools, model, ...(mcp ? { mcp } : {}) });
    const running = worker.run();
    const conversations = new ConversationClient(
      new TurnClient({ connection: connections().client, namespace, taskQueue }),
    );
    let turns = 0;
    return {
      say: async (messageId, text) => {
        const turn = { model: model.name, timing: { heartbeatTimeoutMs: 2_000 } };
        await conversations.send(conversationId, text, { messageId, turn });
        turns += 1;
        const n = turns;
        const result = await conversations.turn(conversationId, n).result();
        await pollFor(`conversation ${conversationId} to hear of turn ${n}'s end`, async () =>
          (await conversations.state(conversationId)).running ? undefined : true,
        );
        return result;
      },
      end: async () => {
        await conversations.close(conversationId);
        worker.shutdown();
        await running;
      },
    };
  },
};

/**
 * What the in-process executor does with its approver, done through the turn's update: a decision
 * the turn refuses (an edit that fails the schema) is asked again with the refusal, and after
 * `maxRefusedDecisions` refusals the call is rejected, in the same words.
 */
async function decideAsApprover({
  approver,
  turn,
  request,
  done,
}: {
  approver: Approver;
  turn: TurnHandle;
  request: Parameters<Approver>[0];
  done: () => boolean;
}): Promise<void> {
  let refused: string | undefined;
  for (let asked = 1; ; asked++) {
    const answer = await approver({ ...request, ...(refused !== undefined && { refused }) });
    if (done()) return;
    try {
      await turn.decide({ via: 'approver', ...answer, toolCallId: request.toolCallId });
      return;
    } catch (error) {
      if (!(error instanceof WorkflowUpdateFailedError)) throw error;
      refused = error.cause?.message ?? error.message;
      if (asked < maxRefusedDecisions) continue;
      await turn.reject(request.toolCallId, {
        reason: `the approver's decision was refused ${asked} times; the last time: ${refused}`,
        via: 'approver',
      });
      return;
    }
  }
}
