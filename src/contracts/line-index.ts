/** An offset's line and column (both from 1) in a text, by a binary search of its line starts (computed once). */
export function lineIndex(text: string): (offset: number) => [line: number, column: number] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return [lo + 1, offset - (starts[lo] ?? 0) + 1];
  };
}
