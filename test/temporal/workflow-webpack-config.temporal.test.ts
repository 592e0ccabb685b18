import path from 'node:path';
import { Client } from '@temporalio/client';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { turnWorkflowWebpackConfig } from '../../worker/turn-workflow-webpack-config';
import { uniqueTurnId } from '../conformance/support';
import { TemporalKit } from './support/kit';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const workflowsPath = path.join(__dirname, '..', '..', 'worker', 'fixtures', 'zod-commonjs-workflows.js');
// The same module run by Node itself, as the reference for what zod makes of each input.
const fixture: { checkOrder: (input: unknown) => Promise<unknown> } = require(workflowsPath);

describe('workflow code bundled with the turn workflow webpack config', () => {
  test('runs CommonJS code that requires zod as Node runs it: zod’s ES build, tree-shaken, parses and words its errors the same', async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath,
      webpackConfigHook: (config) => turnWorkflowWebpackConfig({ config }),
      logger: {
        log: () => {},
        trace: () => {},
        debug: () => {},
        info: () => {},
        warn: () => {},
        error: () => {},
      },
    });
    expect(code).not.toMatch(/node_modules\/zod\/index\.cjs/);
    const taskQueue = kit.taskQueue('webpack-config');
    const worker = await Worker.create({
      connection: kit.native,
      namespace: kit.namespace,
      taskQueue,
      workflowBundle: { code },
    });
    const inputs = [{ item: 'tea', quantity: 2 }, { item: '', quantity: 1.5 }, { quantity: 'many' }, null];
    const results = await worker.runUntil(async () => {
      const client = new Client({ connection: kit.connection, namespace: kit.namespace });
      return Promise.all(
        inputs.map((input) =>
          client.workflow.execute('checkOrder', {
            taskQueue,
            workflowId: uniqueTurnId('zod'),
            args: [input],
          }),
        ),
      );
    });
    expect(results).toEqual(await Promise.all(inputs.map((input) => fixture.checkOrder(input))));
    // The reference itself says what it should: a parsed order, then messages (English, zod's default locale).
    expect(results[0]).toEqual({ ok: true, order: { item: 'tea', quantity: 2 } });
    expect(results[2]).toEqual({
      ok: false,
      messages: [expect.stringMatching(/expected string/), expect.stringMatching(/expected number/)],
    });
  });
});
