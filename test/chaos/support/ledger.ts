import { appendFileSync, existsSync, readFileSync } from 'node:fs';

/**
 * The chaos ledger: one JSON line per event, appended by every process (each line is one
 * `write` with O_APPEND, so lines from different processes never interleave). File order is
 * causal order: the test writes `kill` after the signal went out, so every line a killed worker
 * wrote comes before its `kill`.
 */
export type LedgerLine =
  /** A tool starts its effect. */
  | { e: 'begin'; turnId: string; callId: string; key: string; attempt: number; pid: number }
  /** A tool finished its effect and is about to return it. */
  | { e: 'end'; turnId: string; callId: string; key: string; attempt: number; pid: number }
  /** A model response starts streaming (its tool calls are handed over as they complete). */
  | { e: 'stream'; turnId: string; responseIndex: number; pid: number }
  /** The test SIGKILLed the worker process `pid` (with its whole process group). */
  | { e: 'kill'; pid: number };

export function appendLedger(ledger: string, line: LedgerLine): void {
  appendFileSync(ledger, `${JSON.stringify(line)}\n`);
}

export function readLedger(ledger: string): LedgerLine[] {
  if (!existsSync(ledger)) return [];
  const lines = readFileSync(ledger, 'utf8').split('\n');
  // The last piece is a line still being written (or nothing): only whole lines are read.
  return lines
    .slice(0, -1)
    .filter(Boolean)
    .map((text) => JSON.parse(text) as LedgerLine);
}

/** Worker pids with an effect begun and not ended: where a kill makes an attempt's outcome unknown. */
export function busyPids(lines: readonly LedgerLine[]): Set<number> {
  const open = new Map<string, number>();
  for (const line of lines) {
    if (line.e !== 'begin' && line.e !== 'end') continue;
    const id = `${line.turnId} ${line.callId} ${line.pid}`;
    if (line.e === 'begin') open.set(id, line.pid);
    else open.delete(id);
  }
  return new Set(open.values());
}
