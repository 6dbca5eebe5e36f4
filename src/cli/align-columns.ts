/**
 * Rows of cells as aligned lines for a terminal: each column padded to its widest cell (measured without colour
 * codes), two spaces between columns, the last column unpadded, no trailing spaces.
 */
export function alignColumns(rows: ReadonlyArray<readonly string[]>): string[] {
  const visible = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, "").length;
  const widths: number[] = [];
  for (const r of rows)
    r.forEach((c, i) => {
      widths[i] = Math.max(widths[i] ?? 0, visible(c));
    });
  return rows.map((cells) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + " ".repeat((widths[i] ?? 0) - visible(c))))
      .join("  ")
      .trimEnd(),
  );
}
