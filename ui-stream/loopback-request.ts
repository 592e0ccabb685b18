/** Who sent a request, as the server saw it (a Fetch `Request` does not say). */
export interface ChatRequestClient {
  /** The peer's address (Node: `req.socket.remoteAddress`). */
  remoteAddress?: string;
}

const loopbackAddresses = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A request from this machine, to a loopback name: the peer's address is loopback (so the request
 * came from here), and so is the `Host` it was sent to (so a page of another site cannot reach it
 * through a DNS name rebound to 127.0.0.1); not one a proxy forwarded. Without the peer's address, no.
 */
export function isLoopbackRequest(request: Request, client: ChatRequestClient | undefined): boolean {
  const address = client?.remoteAddress;
  if (address === undefined || !loopbackAddresses.has(address)) return false;
  // A proxy on this machine forwards others' requests: its peer address is loopback, theirs is not.
  if (request.headers.has('x-forwarded-for') || request.headers.has('forwarded')) return false;
  const host = request.headers.get('host');
  if (host === null) return false;
  let hostname: string;
  try {
    hostname = new URL(`http://${host}`).hostname;
  } catch {
    return false;
  }
  return loopbackHosts.has(hostname);
}
