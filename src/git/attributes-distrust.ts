/**
 * Whether `git status` can be trusted to show what a command changed in a work tree with these attributes, and if
 * not, why. The rule (docs/engine.md, Snapshots): with text and line-ending attributes (`text`, `eol`, `crlf`,
 * `-text`, `binary`, `diff`, `merge`, `export-ignore`, `linguist-*`, and any other that only labels files), git
 * status reports exactly what git would stage and commit, and a rewrite that only changes a clean file's line
 * endings is, to git and to the agents' next commit, no change: git's view is the one that matters. A clean or
 * smudge filter (`filter=`, Git LFS included), `working-tree-encoding=` or `ident` makes git compare content
 * through a program or a conversion whose result status may cache or hide: there the tree is walked.
 * `[attr]` macro lines count by what they set. Pure.
 *
 * @returns null when git status can be trusted, else the reason (`a clean/smudge filter (filter=lfs) in .gitattributes`).
 */
export function attributesDistrust(files: ReadonlyArray<{ readonly name: string; readonly text: string }>): string | null {
  for (const { name, text } of files) {
    for (const a of attributeTokens(text)) {
      {
        const filter = /^filter=(.+)$/.exec(a);
        if (filter !== null) return `a clean/smudge filter (filter=${filter[1]}) in ${name}`;
        if (/^working-tree-encoding=/.test(a)) return `a working-tree-encoding in ${name}`;
        if (a === "ident") return `ident (keyword expansion) in ${name}`;
      }
    }
  }
  return null;
}

/** Attributes under which git status cannot be trusted for what a command changed, and the files they cover. */
export interface DistrustedAttributes {
  /** The first reason, for people (`a clean/smudge filter (filter=lfs) in .gitattributes`). */
  readonly reason: string;
  /** One attribute pathspec per distrusted attribute (`:(attr:filter=lfs)`), for `git ls-files`. */
  readonly pathspecs: readonly string[];
}

/**
 * Every attribute {@link attributesDistrust} distrusts in these files, as pathspecs that name the paths carrying
 * it (`:(attr:filter=lfs)`, `:(attr:working-tree-encoding=UTF-16)`, `:(attr:ident)`): git status is trusted for
 * every other path, and those are looked at one by one. Null when nothing is distrusted; `"walk"` when a value
 * cannot be said as a pathspec. Pure.
 */
export function distrustedAttributes(files: ReadonlyArray<{ readonly name: string; readonly text: string }>): DistrustedAttributes | "walk" | null {
  const reason = attributesDistrust(files);
  if (reason === null) return null;
  const specs = new Set<string>();
  for (const { text } of files) {
    for (const a of attributeTokens(text)) {
      const valued = /^(filter|working-tree-encoding)=(.+)$/.exec(a);
      if (valued !== null) {
        if (!/^[A-Za-z0-9._-]+$/.test(valued[2] ?? "")) return "walk";
        specs.add(`:(attr:${valued[1]}=${valued[2]})`);
      } else if (a === "ident") specs.add(":(attr:ident)");
    }
  }
  return { reason, pathspecs: [...specs].sort() };
}

/** Every attribute token of a gitattributes text, line by line: after each line's pattern (possibly quoted), comments and blank lines skipped. */
function* attributeTokens(text: string): Generator<string> {
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    yield* line.startsWith('"')
      ? line
          .replace(/^"(?:[^"\\]|\\.)*"/, "")
          .trim()
          .split(/\s+/)
      : line.split(/\s+/).slice(1);
  }
}
