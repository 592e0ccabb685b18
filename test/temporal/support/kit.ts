import { Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { AnyTool, ConversationHooks, ToolLister, TurnModel } from 'durable-turns';
import { TurnClient } from 'durable-turns/client';
import { createTurnWorker, type ModelRateLimit } from 'durable-turns/worker';
import { testTemporal } from '../../support/temporal-env';

/** Connections to the suite's dev server, and a fresh task queue per test. */
export class TemporalKit {
  native!: NativeConnection;
  connection!: Connection;
  private queues = 0;

  async open(): Promise<void> {
    const { address } = testTemporal();
    this.native = await NativeConnection.connect({ address });
    this.connection = await Connection.connect({ address });
  }

  async close(): Promise<void> {
    await this.connection?.close();
    await this.native?.close();
  }

  get namespace(): string {
    return testTemporal().namespace;
  }

  taskQueue(label: string): string {
    this.queues += 1;
    return `${label}-${process.pid}-${this.queues}`;
  }

  client(taskQueue: string): TurnClient {
    return new TurnClient({ connection: this.connection, namespace: this.namespace, taskQueue });
  }

  worker(args: {
    taskQueue: string;
    tools: AnyTool[];
    model: TurnModel;
    conversationHooks?: ConversationHooks[];
    modelRateLimits?: Record<string, ModelRateLimit>;
    mcp?: ToolLister;
  }): Promise<Worker> {
    return createTurnWorker({
      connection: this.native,
      namespace: this.namespace,
      taskQueue: args.taskQueue,
      tools: args.tools,
      models: [args.model],
      ...(args.conversationHooks ? { conversationHooks: args.conversationHooks } : {}),
      ...(args.modelRateLimits ? { modelRateLimits: args.modelRateLimits } : {}),
      ...(args.mcp ? { mcp: args.mcp } : {}),
      // Tests that look at fleet health make workers of their own: the others would each start
      // their queue's fleet health workflow, with its workflow tasks and signals, for nothing.
      fleetHealth: false,
    });
  }
}
