/**
 * The two sides as the benchmark drives them: how each starts a turn from a script, waits for its
 * result and checks it (a turn that did not complete, or ran the wrong number of calls, fails the
 * run), and which activity types its history calls tools and model requests.
 */
import type { Client } from '@temporalio/client';
import type { TurnClient } from 'durable-turns/client';
import { check } from '../measure';
import { callsOf, FINAL_TEXT, responsesOf, type ScriptName } from './script';
import type { ActivityTypes } from './turn-history';

export type SideName = 'ours' | 'peer';

export interface Side {
  name: SideName;
  types: ActivityTypes;
  /** The Temporal client whose histories are read. */
  client: Client;
  /** Starts the turn, waits for its result and checks it. */
  runTurn(script: ScriptName, workflowId: string): Promise<void>;
}

export function ourSide(turns: TurnClient): Side {
  return {
    name: 'ours',
    types: { tools: ['runTool'], model: 'callModel' },
    client: turns.client,
    runTurn: async (script, turnId) => {
      const handle = await turns.start({ turnId, input: 'go', model: script });
      const result = await handle.result();
      const calls = callsOf(script);
      check(result.status === 'completed', `ours ${turnId}: ended ${result.status} (${result.reason ?? ''})`);
      check(result.text === FINAL_TEXT, `ours ${turnId}: final text ${JSON.stringify(result.text)}`);
      check(result.toolCalls === calls, `ours ${turnId}: ${result.toolCalls} tool calls, expected ${calls}`);
      check(
        result.outputs.length === calls && result.outputs.every((o) => o.status === 'ok'),
        `ours ${turnId}: ${calls} ok outputs`,
      );
      check(
        result.modelResponses === responsesOf(script),
        `ours ${turnId}: ${result.modelResponses} model responses, expected ${responsesOf(script)}`,
      );
    },
  };
}

/** What the peer's workflow (bench/temporal-peer/workflows.cjs) returns. */
interface PeerResult {
  text: string;
  steps: number;
  toolCalls: number;
  toolResults: number;
}

export function peerSide(client: Client, taskQueue: string): Side {
  return {
    name: 'peer',
    types: { tools: ['wait', 'noop'], model: 'invokeModel' },
    client,
    runTurn: async (script, workflowId) => {
      await runPeerTurn(client, taskQueue, script, workflowId, false);
    },
  };
}

/** One peer turn; `sampleForm` passes the activity itself as `execute`, as the sample does. */
export async function runPeerTurn(
  client: Client,
  taskQueue: string,
  script: ScriptName,
  workflowId: string,
  sampleForm: boolean,
): Promise<void> {
  const handle = await client.workflow.start('peerTurn', {
    workflowId,
    taskQueue,
    args: [{ model: script, prompt: 'go', maxSteps: responsesOf(script), sampleForm }],
  });
  const result = (await handle.result()) as PeerResult;
  const calls = callsOf(script);
  check(result.text === FINAL_TEXT, `peer ${workflowId}: final text ${JSON.stringify(result.text)}`);
  check(
    result.toolCalls === calls && result.toolResults === calls,
    `peer ${workflowId}: ${result.toolCalls} calls / ${result.toolResults} results, expected ${calls}`,
  );
  check(
    result.steps === responsesOf(script),
    `peer ${workflowId}: ${result.steps} steps, expected ${responsesOf(script)}`,
  );
}
