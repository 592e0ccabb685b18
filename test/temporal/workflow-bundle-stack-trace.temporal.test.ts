import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { scriptedModel } from 'durable-turns';
import { createTurnWorker } from 'durable-turns/worker';
import { uniqueTurnId } from '../conformance/support';
import { deploy } from '../replay/replay-tools';
import { suiteWorkflowBundleAt } from '../support/suite-workflow-bundle';
import { TemporalKit } from './support/kit';
import { pollFor } from './support/poll';

const kit = new TemporalKit();
const dir = mkdtempSync(path.join(os.tmpdir(), 'bundle-stack-'));
beforeAll(() => kit.open());
afterAll(async () => {
  await kit.close();
  rmSync(dir, { recursive: true, force: true });
});

const turnWorkflowSource = path.join(__dirname, '..', '..', 'workflows', 'turn', 'turn-workflow.ts');

// The bundle's source map carries mappings but not the sources' text (turnWorkflowWebpackConfig):
// what a stack trace needs must still be there.
describe('a worker running a prebuilt workflow bundle', () => {
  test('names the original source file, and the line where the turn waits, in a workflow stack trace', async () => {
    const { codePath } = await suiteWorkflowBundleAt(path.join(dir, 'turn-workflows.js'));
    const taskQueue = kit.taskQueue('bundle-stack');
    const worker = await createTurnWorker({
      connection: kit.native,
      namespace: kit.namespace,
      taskQueue,
      tools: [deploy],
      models: [
        scriptedModel([
          { toolCalls: [{ id: 'd', name: 'deploy', args: { target: 'prod' } }] },
          { text: 'done' },
        ]),
      ],
      workflowBundlePath: codePath,
    });
    expect(worker.workflowBundle).toEqual({ kind: 'prebuilt', path: codePath });
    const stack = await worker.runUntil(async () => {
      const turnId = uniqueTurnId('bundle-stack');
      const turn = await kit.client(taskQueue).start({ turnId, input: 'go', model: 'scripted' });
      await pollFor('the deploy to wait for approval', async () =>
        (await turn.state()).phase === 'awaiting-approval' ? true : undefined,
      );
      const client = new Client({ connection: kit.connection, namespace: kit.namespace });
      const stack = await client.workflow.getHandle(turnId).query<string>('__stack_trace');
      await turn.approve('d');
      expect((await turn.result()).status).toBe('completed');
      return stack;
    });

    // No frame is left in the bundle's own code: every one was mapped back.
    expect(stack).not.toMatch(/turn-workflows\.js|workflow-bundle-/);
    const frames = [...stack.matchAll(/\(([^()]+\/workflows\/turn\/turn-workflow\.ts):(\d+):\d+\)/g)];
    if (frames.length === 0)
      throw new Error(`the stack names no line of workflows/turn/turn-workflow.ts:\n${stack}`);
    for (const frame of frames) expect(frame[1]).toBe(turnWorkflowSource);
    // Among the lines it names is the one the turn is waiting at (an approval: the wait for the
    // next host event, parked on the queue), and no line of the queue's own bookkeeping.
    const source = readFileSync(turnWorkflowSource, 'utf8').split('\n');
    const lines = frames.map((frame) => source[Number(frame[2]) - 1] ?? '');
    expect(lines.some((line) => /await queue\.park\(resume\)/.test(line))).toBe(true);
    expect(lines.some((line) => /new HostEventQueue/.test(line))).toBe(false);
  });
});
