import * as path from "node:path";

/** `to` relative to `from`, with `/` separators; "." for the same folder. */
export function relativePosix(from: string, to: string): string {
  const rel = path.relative(from, to).split(path.sep).join("/");
  return rel === "" ? "." : rel;
}
