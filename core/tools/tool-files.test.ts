import { z } from 'zod';
import type { FilePart } from '../schema/media';
import { defineTool } from './define-tool';
import { evaluatePolicy } from './prepare-call';
import { type HostTimers, runToolAttempt } from './run-tool-attempt';
import { FileRejectedError, type StoreToolFiles, withFiles } from './tool-files';
import { ToolRegistry } from './tool-registry';

const timers: HostTimers = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

const shot = (caption: string, bytes: Uint8Array) =>
  defineTool({
    name: 'shot',
    description: 'Screenshot',
    input: z.object({}),
    execute: () => withFiles(caption, [{ mediaType: 'image/png', data: bytes }]),
  });

/** Keeps each file inline, as base64. */
const inline: StoreToolFiles = async (files) =>
  files.map(
    (file): FilePart => ({
      type: 'file',
      mediaType: file.mediaType,
      data: {
        base64: Buffer.from(file.data instanceof Uint8Array ? file.data : new Uint8Array()).toString(
          'base64',
        ),
      },
    }),
  );

async function attempt(tool: ReturnType<typeof shot>, storeFiles?: StoreToolFiles) {
  const { result } = await runToolAttempt({
    turnId: 't',
    call: { toolCallId: 'c1', toolName: 'shot', input: {}, policy: evaluatePolicy(tool, {}) },
    attempt: 1,
    registry: new ToolRegistry([tool]),
    timers,
    ...(storeFiles ? { storeFiles } : {}),
  });
  return result;
}

describe("a tool's files", () => {
  it('are kept by the host and recorded with the result; the same caption over different pictures is a different result', async () => {
    const first = await attempt(shot('home', new Uint8Array([1, 2, 3])), inline);
    const second = await attempt(shot('home', new Uint8Array([4, 5, 6])), inline);
    expect(first).toMatchObject({
      status: 'ok',
      content: 'home',
      files: [{ type: 'file', mediaType: 'image/png', data: { base64: 'AQID' } }],
    });
    expect(first.status === 'ok' && second.status === 'ok' && first.resultHash !== second.resultHash).toBe(
      true,
    );
  });

  it('that the host will not keep make the output an error saying why, not retried', async () => {
    const refuse: StoreToolFiles = () =>
      Promise.reject(new FileRejectedError('file 1 (image/png) is too big', 'file-too-large'));
    expect(await attempt(shot('home', new Uint8Array(3)), refuse)).toMatchObject({
      status: 'error',
      errorType: 'file-too-large',
      content: 'file 1 (image/png) is too big',
      retryable: false,
    });
    expect(await attempt(shot('home', new Uint8Array(3)))).toMatchObject({
      status: 'error',
      errorType: 'file-not-stored',
      retryable: false,
    });
  });
});
