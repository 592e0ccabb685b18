/** Rows under a header, each column as wide as its widest cell; trailing spaces trimmed. */
export function tableLines({ header, rows }: { header: string[]; rows: string[][] }): {
  header: string;
  rows: string[];
} {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return { header: line(header), rows: rows.map(line) };
}
