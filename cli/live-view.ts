interface Stream {
  write(text: string): unknown;
  columns?: number;
}

/** A region of the terminal redrawn in place (log-update), on a timer so spinners and clocks move. */
export interface LiveView {
  draw(lines: string[]): void;
  /** Prints lines above the live region, to stay (the frame is drawn again below them). */
  print(lines: string[]): void;
  /** Leaves the last frame on screen and the cursor below it. */
  done(): void;
}

export async function openLiveView({
  stream,
  frame,
  intervalMs = 100,
}: {
  stream: Stream & NodeJS.WritableStream;
  /** Draws the current frame (called on every tick as well as on `draw`). */
  frame: () => string[];
  intervalMs?: number;
}): Promise<LiveView> {
  // log-update is ESM-only: loaded on demand, and only on a terminal.
  const { createLogUpdate } = await import('log-update');
  // A terminal that reports no size (0×0: a pty nobody sized, as under `script`) gets a usual one:
  // log-update would otherwise clip every frame to nothing.
  const sized = {
    isTTY: true,
    write: (text: string) => stream.write(text),
    get columns() {
      return stream.columns || 100;
    },
    get rows() {
      return (stream as { rows?: number }).rows || 40;
    },
  } as unknown as NodeJS.WriteStream;
  const update = createLogUpdate(sized, { showCursor: false });
  const timer = setInterval(() => update(frame().join('\n')), intervalMs);
  timer.unref();
  return {
    draw: (lines) => update(lines.join('\n')),
    print: (lines) => {
      update.clear();
      stream.write(`${lines.join('\n')}\n`);
      update(frame().join('\n'));
    },
    done: () => {
      clearInterval(timer);
      update(frame().join('\n'));
      update.done();
    },
  };
}
