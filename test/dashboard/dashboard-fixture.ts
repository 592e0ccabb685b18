import { Connection } from '@temporalio/client';
import { TurnClient } from '../../client/turn-client';
import type { DashboardOptions } from '../../dashboard/dashboard-config';
import { startDashboard } from '../../dashboard/start-dashboard';
import { testTemporal } from '../support/temporal-env';

/** What reached the turns through the dashboard: upstream watches and queries, per turn. */
export interface UpstreamCounts {
  watches: Map<string, number>;
  states: Map<string, number>;
  queries: Map<string, number>;
}

const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

/**
 * A real dashboard on a free port, on the suite's server, whose client counts every watch,
 * state read and workflow query it sends to a turn (through a client interceptor).
 */
export async function startTestDashboard({
  taskQueue,
  options = {},
  lingerMs,
}: {
  taskQueue: string;
  options?: DashboardOptions;
  lingerMs?: number;
}) {
  const { address, namespace } = testTemporal();
  const connection = await Connection.connect({ address });
  const counts: UpstreamCounts = { watches: new Map(), states: new Map(), queries: new Map() };
  const client = new TurnClient({
    connection,
    namespace,
    taskQueue,
    interceptors: {
      workflow: [
        {
          query: (input, next) => {
            bump(counts.queries, input.workflowExecution.workflowId);
            return next(input);
          },
        },
      ],
    },
  });
  const dashboard = await startDashboard({
    client,
    upstream: { address, namespace },
    options: { port: 0, ...options },
    ...(lingerMs !== undefined && { lingerMs }),
    watchSource: {
      watch: (turnId, watchOptions) => {
        bump(counts.watches, turnId);
        return client.watch(turnId, watchOptions);
      },
      state: (turnId) => {
        bump(counts.states, turnId);
        return client.attach(turnId).state();
      },
    },
  });
  return {
    url: dashboard.url,
    client,
    counts,
    namespace,
    close: async () => {
      await dashboard.close();
      await connection.close();
    },
  };
}
