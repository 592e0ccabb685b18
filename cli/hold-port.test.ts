import net from 'node:net';
import { freePort } from '../devserver/free-port';
import { holdPort } from './hold-port';

function tryListen(port: number): Promise<boolean> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

test('a held port cannot be bound by anyone else until it is released; releasing twice is harmless', async () => {
  const port = await freePort();
  const hold = await holdPort({ port });
  expect(hold).toBeDefined();
  expect(await tryListen(port)).toBe(false);
  await hold?.release();
  await hold?.release();
  expect(await tryListen(port)).toBe(true);
});

test('a port already in use cannot be held', async () => {
  const port = await freePort();
  const first = await holdPort({ port });
  expect(await holdPort({ port })).toBeUndefined();
  await first?.release();
});
