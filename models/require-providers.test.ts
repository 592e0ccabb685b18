import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * AI SDK 7's packages are ESM only, and our build is CommonJS: `dist/models/create-model.js`
 * `require()`s them, which Node does unflagged from 20.19 and 22.12 (hence `engines`). Jest turns
 * them into CommonJS itself, so only a plain Node process shows that this Node loads them.
 */
describe('the provider packages createModel uses', () => {
  it('load through require() in a plain Node process on this Node, as the CommonJS build loads them', async () => {
    const script = `
      const { createOpenAI } = require('@ai-sdk/openai');
      const { createAnthropic } = require('@ai-sdk/anthropic');
      const { createOpenAICompatible } = require('@ai-sdk/openai-compatible');
      const models = [
        createOpenAI({ apiKey: 'k' }).chat('m'),
        createAnthropic({ apiKey: 'k' })('m'),
        createOpenAICompatible({ name: 'local', baseURL: 'http://127.0.0.1:1/v1' }).chatModel('m'),
      ];
      console.log(models.map((m) => m.provider + ':' + m.specificationVersion).join(' '));
    `;
    const { stdout, stderr } = await run(process.execPath, ['-e', script], { cwd: __dirname });
    expect(stdout.trim()).toBe('openai.chat:v4 anthropic.messages:v4 local.chat:v4');
    // Not even an ExperimentalWarning about require(esm): users would see it on every start.
    expect(stderr).toBe('');
  });
});
