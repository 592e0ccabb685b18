import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { type Script, startRecordingServer, type TestServer } from './recording-server';

/** A recorded provider body from the repository's copy of the corpus, byte for byte. */
export function readRecording(provider: string, name: string): Buffer {
  return readFileSync(join(__dirname, '../../fixtures/provider-streams', provider, name));
}

/**
 * A recorded body, answered with HTTP 200 as an event stream. `pauseBefore` holds the rest back a
 * while from the first occurrence of that text; `dropBefore` destroys the socket there instead (a
 * connection lost mid-stream, the bytes before it delivered).
 */
export interface RecordedReply {
  body: Buffer;
  pauseBefore?: { text: string; ms: number };
  dropBefore?: string;
}

/** A local provider at `path` (e.g. `/v1/responses`) answering each request with a recorded body. */
export function startRecordedStreamServer(path: string, script: Script<RecordedReply>): Promise<TestServer> {
  return startRecordingServer({
    path,
    script,
    noReply: (index) => ({
      kind: 'http-error',
      status: 400,
      body: { error: { message: `recorded stream server has no reply for request #${index}` } },
    }),
    respond: (reply, _request, res) => writeRecorded(res, reply),
  });
}

async function writeRecorded(res: ServerResponse, { body, pauseBefore, dropBefore }: RecordedReply) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  const cut = body.indexOf(dropBefore ?? pauseBefore?.text ?? '');
  if ((dropBefore === undefined && pauseBefore === undefined) || cut < 0) {
    await write(res, body);
  } else {
    await write(res, body.subarray(0, cut));
    if (dropBefore !== undefined) {
      // Let the delivered bytes reach the client before the connection dies.
      await sleep(20);
      res.socket?.destroy();
      return;
    }
    await sleep(pauseBefore?.ms ?? 0);
    await write(res, body.subarray(cut));
  }
  await new Promise<void>((resolve) => res.end(resolve));
}

function write(res: ServerResponse, bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) => res.write(bytes, (error) => (error ? reject(error) : resolve())));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
