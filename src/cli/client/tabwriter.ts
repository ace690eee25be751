/**
 * The table layout istioctl prints with Go's text/tabwriter (`Init(w, 0, 8, 5, ' ', 0)`):
 * every cell but the last of a row is padded to its column's widest cell plus 5 spaces; the
 * last cell is written as it is.
 */
export function formatTable(rows: readonly (readonly string[])[], padding = 5): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.slice(0, -1).forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i < row.length - 1 ? cell.padEnd((widths[i] ?? 0) + padding) : cell))
        .join(''),
    )
    .map((line) => `${line}\n`)
    .join('');
}
