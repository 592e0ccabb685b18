import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BlobStore } from './blob-store';
import { fileBlobStore } from './file-blob-store';
import { fileLimitsSchema } from './file-limits';
import { toolFileKeeper } from './keep-files';
import { withFileBytes } from './with-file-bytes';

let folder: string;
let store: BlobStore;
beforeEach(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'durable-turns-keep-'));
  store = fileBlobStore({ directory: folder });
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

describe('keeping a tool’s files', () => {
  const limits = { inlineMaxBytes: 1024, maxFileBytes: 10_000 };

  it('keeps a file up to the inline limit as base64, a larger one in the store by reference and digest, a URL as it is', async () => {
    const [tiny, large] = [randomBytes(1024), randomBytes(1025)];
    const kept = await toolFileKeeper({ store, limits })([
      { mediaType: 'image/png', data: tiny },
      { mediaType: 'image/png', filename: 'large.png', data: { base64: large.toString('base64') } },
      { mediaType: 'application/pdf', data: { url: 'https://example.com/a.pdf' } },
    ]);
    expect(kept).toEqual([
      { type: 'file', mediaType: 'image/png', data: { base64: tiny.toString('base64') } },
      {
        type: 'file',
        mediaType: 'image/png',
        filename: 'large.png',
        data: {
          blob: { key: expect.any(String), sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: 1025 },
        },
      },
      { type: 'file', mediaType: 'application/pdf', data: { url: 'https://example.com/a.pdf' } },
    ]);
  });

  it('refuses a file over the per-file limit, one with no media type, and a large one without a store, each saying which and why', async () => {
    const keep = toolFileKeeper({ store, limits });
    await expect(keep([{ mediaType: 'image/png', data: randomBytes(10_001) }])).rejects.toMatchObject({
      errorType: 'file-too-large',
      message:
        'file 1 (image/png) is 10.0 KB (10001 bytes), over the limit of 10.0 KB (10000 bytes) per file (maxFileBytes)',
    });
    await expect(keep([{ mediaType: 'png', data: randomBytes(10) }])).rejects.toMatchObject({
      errorType: 'file-invalid',
    });
    await expect(
      toolFileKeeper({ store: undefined, limits })([{ mediaType: 'image/png', data: randomBytes(2000) }]),
    ).rejects.toMatchObject({
      errorType: 'file-not-stored',
      message: expect.stringContaining('no blob store'),
    });
  });

  it('a store that fails makes the file not kept, with the store’s reason', async () => {
    const broken: BlobStore = {
      put: () => Promise.reject(new Error('disk full')),
      get: () => Promise.reject(new Error('no')),
    };
    await expect(
      toolFileKeeper({ store: broken, limits })([{ mediaType: 'image/png', data: randomBytes(2000) }]),
    ).rejects.toMatchObject({ errorType: 'file-not-stored', message: expect.stringContaining('disk full') });
  });

  it('defaults to 64 KiB inline and 20 MiB per file', () => {
    expect(fileLimitsSchema.parse({})).toEqual({ inlineMaxBytes: 65_536, maxFileBytes: 20_971_520 });
  });
});

describe('reading kept files back for a request', () => {
  it('puts the bytes of every stored file back into the messages, reading each blob once', async () => {
    const bytes = randomBytes(5000);
    const [part] = await toolFileKeeper({ store, limits: { inlineMaxBytes: 10 } })([
      { mediaType: 'image/png', data: bytes },
    ]);
    if (!part) throw new Error('no part');
    let reads = 0;
    const counting: BlobStore = {
      put: (b) => store.put(b),
      get: (ref) => {
        reads += 1;
        return store.get(ref);
      },
    };
    const output = { status: 'ok' as const, content: 'shot', attempts: 1, files: [part] };
    const messages = await withFileBytes({
      store: counting,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'see' }, part] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 't', output }] },
      ],
    });
    const base64 = bytes.toString('base64');
    expect(messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'see' },
        { ...part, data: { base64 } },
      ],
    });
    expect(messages[1]).toMatchObject({ content: [{ output: { files: [{ data: { base64 } }] } }] });
    expect(reads).toBe(1);
  });
});
