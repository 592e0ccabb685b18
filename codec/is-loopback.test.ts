import { isLoopback } from './is-loopback';

test('localhost, 127.0.0.0/8 and ::1 are loopback', () => {
  for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1'])
    expect({ host, loopback: isLoopback({ host }) }).toEqual({ host, loopback: true });
});

test('any address, a LAN address or another name is beyond loopback', () => {
  for (const host of [
    '0.0.0.0',
    '::',
    '192.168.1.4',
    '10.0.0.1',
    'example.com',
    'localhost.example.com',
    '128.0.0.1',
  ])
    expect({ host, loopback: isLoopback({ host }) }).toEqual({ host, loopback: false });
});
