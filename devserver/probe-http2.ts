import http2 from 'node:http2';
import type { ConnectionOptions } from '@temporalio/client';

/**
 * Checks that `address` answers with an HTTP/2 handshake (gRPC runs on HTTP/2) within `timeoutMs`.
 * Resolves to `undefined` when it does, otherwise to the reason it did not.
 *
 * Why not just let the gRPC client try: when a peer accepts TCP but never speaks HTTP/2 (another
 * program on the port, a half-started server) or never answers at all, `@grpc/grpc-js` 1.14 gives
 * up on the call but closes its half-open socket only gracefully, so the socket stays and keeps the
 * whole process alive. Here we own the socket and destroy it. Certificates are not verified: this
 * only asks "is something speaking HTTP/2 there"; the gRPC connection that follows does the checks.
 */
export async function probeHttp2({
  address,
  tls,
  timeoutMs,
}: {
  address: string;
  tls: ConnectionOptions['tls'];
  timeoutMs: number;
}): Promise<string | undefined> {
  return new Promise((resolve) => {
    const tlsConfig = typeof tls === 'object' && tls !== null ? tls : undefined;
    const session = tls
      ? http2.connect(`https://${address}`, {
          rejectUnauthorized: false,
          ...(tlsConfig?.serverNameOverride !== undefined && { servername: tlsConfig.serverNameOverride }),
          ...(tlsConfig?.clientCertPair !== undefined && {
            cert: Buffer.from(tlsConfig.clientCertPair.crt),
            key: Buffer.from(tlsConfig.clientCertPair.key),
          }),
        })
      : http2.connect(`http://${address}`);
    let settled = false;
    const finish = (reason: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.destroy();
      resolve(reason);
    };
    const timer = setTimeout(() => finish(`no HTTP/2 (gRPC) answer within ${timeoutMs} ms`), timeoutMs);
    session.once('remoteSettings', () => finish(undefined));
    session.once('error', (error) => finish(error.message));
    session.once('close', () => finish('the connection was closed without an HTTP/2 (gRPC) answer'));
  });
}
