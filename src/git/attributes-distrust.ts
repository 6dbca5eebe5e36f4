/**
 * Whether `git status` can be trusted to show what a command changed in a work tree with these attributes, and if
 * not, why. The rule (README, "Snapshots"): with text and line-ending attributes (`text`, `eol`, `crlf`,
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
    for (const raw of text.split(/\r?\n/)) {
      const line = raw.trim();
      if (line === "" || line.startsWith("#")) continue;
      // The pattern (possibly quoted), then the attributes.
      const attrs = line.startsWith('"') ? line.replace(/^"(?:[^"\\]|\\.)*"/, "").trim().split(/\s+/) : line.split(/\s+/).slice(1);
      for (const a of attrs) {
        const filter = /^filter=(.+)$/.exec(a);
        if (filter !== null) return `a clean/smudge filter (filter=${filter[1]}) in ${name}`;
        if (/^working-tree-encoding=/.test(a)) return `a working-tree-encoding in ${name}`;
        if (a === "ident") return `ident (keyword expansion) in ${name}`;
      }
    }
  }
  return null;
}
