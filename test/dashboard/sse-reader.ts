/** One server-sent event as a browser's EventSource would hand it over (data parsed as JSON). */
export interface ReadEvent {
  id?: string;
  event: string;
  data: unknown;
}

/**
 * Reads an event stream over real HTTP until `until` says stop (or the server closes it); the
 * connection is closed afterwards, as a viewer closing the page would.
 */
export async function readSse({
  url,
  headers = {},
  until = () => false,
  onOpen,
  onEvent,
}: {
  url: string;
  headers?: Record<string, string>;
  until?: (event: ReadEvent, all: ReadEvent[]) => boolean;
  onOpen?: (response: Response) => void;
  /** Each event as it arrives (the test may act on it: open a gate, say). */
  onEvent?: (event: ReadEvent) => void;
}): Promise<{ status: number; events: ReadEvent[]; closedByServer: boolean }> {
  const abort = new AbortController();
  const response = await fetch(url, { headers, signal: abort.signal });
  onOpen?.(response);
  const events: ReadEvent[] = [];
  if (!response.ok || !response.body) return { status: response.status, events, closedByServer: true };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { status: response.status, events, closedByServer: true };
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = new Map<string, string>();
        for (const line of block.split('\n')) {
          if (line.startsWith(':') || !line.includes(':')) continue;
          const at = line.indexOf(':');
          fields.set(line.slice(0, at), line.slice(at + 1).trimStart());
        }
        const data = fields.get('data');
        if (data === undefined) continue;
        const event: ReadEvent = {
          ...(fields.has('id') && { id: fields.get('id') }),
          event: fields.get('event') ?? 'message',
          data: JSON.parse(data),
        };
        events.push(event);
        onEvent?.(event);
        if (until(event, events)) return { status: response.status, events, closedByServer: false };
      }
    }
  } finally {
    abort.abort();
  }
}
