import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { scriptedModel } from 'durable-turns';
import { createTurnWorker, turnWorkflowBundleManifestPath } from 'durable-turns/worker';
import { uniqueTurnId } from '../conformance/support';
import { echoTool } from '../support/echo-tool';
import { suiteWorkflowBundleAt } from '../support/suite-workflow-bundle';
import { TemporalKit } from './support/kit';

const kit = new TemporalKit();
const dir = mkdtempSync(path.join(os.tmpdir(), 'worker-bundle-'));
beforeAll(() => kit.open());
afterAll(async () => {
  await kit.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a worker given a prebuilt workflow bundle', () => {
  test('starts with it, without bundling, and runs a turn', async () => {
    const { codePath } = await suiteWorkflowBundleAt(path.join(dir, 'turn-workflows.js'));
    const taskQueue = kit.taskQueue('bundle');
    const log: string[] = [];
    const worker = await createTurnWorker({
      connection: kit.native,
      namespace: kit.namespace,
      taskQueue,
      tools: [echoTool],
      models: [
        scriptedModel([{ toolCalls: [{ id: 'c1', name: 'echo', args: { n: 1 } }] }, { text: 'done' }]),
      ],
      workflowBundlePath: codePath,
      log: (m) => log.push(m),
    });
    expect(worker.workflowBundle).toEqual({ kind: 'prebuilt', path: codePath });
    const result = await worker.runUntil(async () => {
      const turn = await kit
        .client(taskQueue)
        .start({ turnId: uniqueTurnId('bundle'), input: 'go', model: 'scripted' });
      return turn.result();
    });
    expect(result.status).toBe('completed');
    expect(result.outputs.map((o) => [o.toolCallId, o.status, o.content])).toEqual([['c1', 'ok', 'echo 1']]);
    expect(log).toEqual([]);
  });

  test('refuses to start when the bundle it was given is stale, rather than bundling quietly', async () => {
    const { codePath, manifest } = await suiteWorkflowBundleAt(path.join(dir, 'stale.js'));
    writeFileSync(
      turnWorkflowBundleManifestPath({ codePath }),
      JSON.stringify({ ...manifest, temporalWorkflowVersion: '0.9.0' }),
    );
    await expect(
      createTurnWorker({
        connection: kit.native,
        namespace: kit.namespace,
        taskQueue: kit.taskQueue('stale-bundle'),
        tools: [echoTool],
        models: [scriptedModel([{ text: 'never' }])],
        workflowBundlePath: codePath,
      }),
    ).rejects.toThrow(/stale: it was built with @temporalio\/workflow 0\.9\.0/);
  });
});
