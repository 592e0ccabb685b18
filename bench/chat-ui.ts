/**
 * What a chat page waits for, on Temporal: messages sent through the chat route by the AI SDK's own
 * chat client (`AbstractChat` + `DefaultChatTransport`, over HTTP), each a new chat. Per message,
 * from its send: when the model yielded its first text (the baseline, same run) and when the
 * first text reached the client on the wire; and the bytes of the answer's stream.
 * `npx tsx bench/chat-ui.ts` → bench/results/chat-ui.json.
 */

import { loadavg } from 'node:os';
import { chatConversations, TurnClient } from 'durable-turns/client';
import { chatRoute } from 'durable-turns/ui-stream';
import { createTurnWorker } from 'durable-turns/worker';
import { chatTools } from '../examples/chat/chat-agent';
import { startChatServer } from '../examples/chat/chat-server';
import { heldChatModel } from '../test/ui-stream/held-chat-model';
import { NodeChat } from '../test/ui-stream/node-chat';
import { logger, machineInfo, median, medianInterval, round, runBench, writeReport } from './measure';
import { openBenchTemporal } from './temporal-env';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 12);
const log = logger('chat-ui');

async function main() {
  const loadBefore = loadavg()[0] ?? 0;
  const temporal = await openBenchTemporal(log);
  const taskQueue = `chat-ui-${process.pid}`;
  const modelFirstText = new Map<string, number>();
  const model = heldChatModel({
    wordDelayMs: 30,
    held: async () => {},
    onFirstText: (turnId, at) => modelFirstText.set(turnId, at),
  });
  const worker = await createTurnWorker({
    connection: temporal.native,
    namespace: temporal.namespace,
    taskQueue,
    tools: chatTools,
    models: [model],
    fleetHealth: false,
  });
  const turns = new TurnClient({ connection: temporal.connection, namespace: temporal.namespace, taskQueue });
  const server = await startChatServer({
    route: chatRoute({ conversations: chatConversations(turns, { turn: { model: model.name } }) }),
  });
  const samples: { modelMs: number; wireMs: number; bytes: number }[] = [];
  await worker.runUntil(async () => {
    for (let n = 0; n < MESSAGES + 2; n++) {
      const chatId = `bench-chat-${process.pid}-${n}`;
      let sentAt = 0;
      let firstTextAt: number | undefined;
      let bytes = 0;
      // The client's fetch, watching its bytes: when the first text arrived, and how much came.
      const counting: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (!response.body) return response;
        const decoder = new TextDecoder();
        const body = response.body.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              bytes += chunk.byteLength;
              if (
                firstTextAt === undefined &&
                decoder.decode(chunk, { stream: true }).includes('"text-delta"')
              )
                firstTextAt = Date.now();
              controller.enqueue(chunk);
            },
          }),
        );
        return new Response(body, response);
      };
      const chat = new NodeChat({ api: `${server.url}/api/chat`, id: chatId, fetch: counting });
      sentAt = Date.now();
      await chat.sendMessage({ text: `hello number ${n}` });
      await chat.until((c) => c.messages.length === 2);
      const modelAt = modelFirstText.get(`${chatId}#1`);
      if (modelAt === undefined || firstTextAt === undefined) throw new Error(`message ${n}: no first text`);
      // The first two warm the route, the worker and the server up.
      if (n >= 2) samples.push({ modelMs: modelAt - sentAt, wireMs: firstTextAt - sentAt, bytes });
      log(`message ${n}: model ${modelAt - sentAt} ms, wire ${firstTextAt - sentAt} ms, ${bytes} bytes`);
    }
  });
  await server.close();
  await temporal.close();

  const ratios = samples.map((s) => s.wireMs / s.modelMs);
  const interval = medianInterval(ratios);
  await writeReport('chat-ui.json', {
    messages: samples.length,
    firstTextMs: {
      model: round(median(samples.map((s) => s.modelMs))),
      onTheWire: round(median(samples.map((s) => s.wireMs))),
      lag: round(median(samples.map((s) => s.wireMs - s.modelMs))),
    },
    ratio: {
      median: round(median(ratios)),
      interval90: { low: round(interval.low), high: round(interval.high) },
    },
    bytesPerAnswer: round(median(samples.map((s) => s.bytes))),
    note: 'a 14-word answer streamed at 30 ms a word; times from the send, on this machine',
    machine: machineInfo(loadBefore),
  });
}

runBench(main);
