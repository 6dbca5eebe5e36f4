/**
 * A copy of `text` made as it is read, left to right: `blank(from, to)` puts spaces over that span (its line breaks
 * kept, so lines and columns stay where they were), `done()` gives the copy with the rest as it is. What the lexical
 * scans of source and build files (Rust's and Java's literals, a Gradle script's comments) read instead of the text.
 */
export function blanking(text: string): { blank(from: number, to: number): void; done(): string } {
  const out: string[] = [];
  let kept = 0;
  return {
    blank(from, to) {
      out.push(text.slice(kept, from), text.slice(from, to).replace(/[^\n]/g, " "));
      kept = to;
    },
    done() {
      out.push(text.slice(kept));
      return out.join("");
    },
  };
}
