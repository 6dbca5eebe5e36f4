import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { loadShellParser, type ShellParser } from "../../src/shell/load-shell-parser.js";
import { shellWritePaths } from "../../src/shell/shell-write-paths.js";

let parser: ShellParser;
beforeAll(async () => {
  parser = await loadShellParser();
});

const CWD = "/repo";
const run = (cmd: string, homeDir?: string) => shellWritePaths(parser, cmd, { cwd: CWD, ...(homeDir === undefined ? {} : { homeDir }) });

/** [command, paths it writes (relative to /repo unless absolute), unresolved count] */
const CASES: ReadonlyArray<[string, string[], number]> = [
  ["echo hi > out.txt", ["out.txt"], 0],
  ["echo x >> a 2> b", ["a", "b"], 0],
  ["echo x >| forced.txt", ["forced.txt"], 0],
  ["make &> build.log", ["build.log"], 0],
  ["make &>> build.log", ["build.log"], 0],
  ["npm test 2>&1 | tee test.log", ["test.log"], 0],
  ["npm test > /dev/null 2>&1", [], 0],
  ["cmd 2>/dev/null >/dev/stderr", [], 0],
  ["cmd >&2", [], 0],
  ["cmd > all.log 2>&1", ["all.log"], 0],
  ["cmd >& both.log", ["both.log"], 0],
  ["cat > notes.md <<'EOF'\n# title\n> not a redirect\nEOF", ["notes.md"], 0],
  ['cat <<EOF > config.json\n{"a": 1}\nEOF', ["config.json"], 0],
  ["cat <<'EOF' | tee src/gen.ts\nexport const x = 1;\nEOF", ["src/gen.ts"], 0],
  ["cat <<EOF | tee -a log.txt > /dev/null\nline\nEOF", ["log.txt"], 0],
  ["tee a.txt b.txt < input", ["a.txt", "b.txt"], 0],
  ["echo x | tee -a -i shared.log", ["shared.log"], 0],
  ["echo x | tee -- -weird-name", ["-weird-name"], 0],
  ["echo x | sudo tee /etc/hosts", ["/etc/hosts"], 0],
  ["echo x | sudo -u root tee -a /var/log/app.log", ["/var/log/app.log"], 0],
  ["env FOO=1 tee out.txt < in", ["out.txt"], 0],
  ["cd sub && make > build.log", ["sub/build.log"], 0],
  ["cd sub; echo a > a.txt; cd ..; echo b > b.txt", ["sub/a.txt", "b.txt"], 0],
  ["cd /tmp && echo x > t", ["/tmp/t"], 0],
  ["(cd sub && echo > in-sub.txt); echo > top.txt", ["sub/in-sub.txt", "top.txt"], 0],
  ["cd $DIR && echo x > f", [], 1],
  ["cd - && echo x > f", [], 1],
  ['echo x > "$OUT"', [], 1],
  ["echo x > $OUT/file", [], 1],
  ["echo x > ${OUT}", [], 1],
  ['echo x > "my file.txt"', ["my file.txt"], 0],
  ["echo x > 'single quoted.txt'", ["single quoted.txt"], 0],
  ["echo x > with\\ space.txt", ["with space.txt"], 0],
  ['echo x > "dir with space/a \\"q\\".txt"', ['dir with space/a "q".txt'], 0],
  ["echo x > pre_\"mid\"_'end'.txt", ["pre_mid_end.txt"], 0],
  ["echo x > *.txt", [], 1],
  ["echo x > ~/notes.txt", ["/home/me/notes.txt"], 0],
  ["echo $(echo inner > inner.txt) > outer.txt", ["inner.txt", "outer.txt"], 0],
  ["X=$(date > stamp.txt) && echo $X", ["stamp.txt"], 0],
  ["diff <(sort a > sorted-a) b", ["sorted-a"], 0],
  ["for f in *.ts; do echo $f >> list.txt; done", ["list.txt"], 0],
  ["if true; then echo ok > ok.txt; else echo no > no.txt; fi", ["no.txt", "ok.txt"], 0],
  ["while read l; do echo $l; done < in.txt > out.txt", ["out.txt"], 0],
  ["{ echo a; echo b; } > grouped.txt", ["grouped.txt"], 0],
  ["git log > ../outside.log", ["/outside.log"], 0],
  ["echo x > ./a/../b.txt", ["b.txt"], 0],
  ["sort -o sorted.txt in.txt", [], 0],
  ["cat in.txt", [], 0],
  ["ls -la && git status", [], 0],
  ["exec 3> fd3.txt", ["fd3.txt"], 0],
  ["python3 - <<'PY' > result.json\nprint('{}')\nPY", ["result.json"], 0],
  ["echo x 1> one.txt", ["one.txt"], 0],
  ["true > a; false > a", ["a"], 0],
];

describe("shellWritePaths", () => {
  for (const [cmd, expected, unresolved] of CASES) {
    it(JSON.stringify(cmd), () => {
      const r = run(cmd, "/home/me");
      const want = expected.map((p) => (p.startsWith("/") ? p : `${CWD}/${p}`).replace(/\/[^/]+\/\.\.\//g, "/")).sort();
      expect(r.paths).toEqual([...new Set(want)].sort());
      expect(r.unresolved).toBe(unresolved);
      expect(r.parseError).toBe(false);
    });
  }

  it("has at least 40 real-world commands", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });

  it("leaves ~ unresolved without a home folder", () => {
    expect(run("echo x > ~/n.txt")).toMatchObject({ paths: [], unresolved: 1 });
  });

  it("reads what it can from a command that does not parse", () => {
    const r = run("echo ok > good.txt; if then fi ((( > ");
    expect(r.parseError).toBe(true);
    expect(r.paths).toContain("/repo/good.txt");
  });

  it("caps the number of paths", () => {
    const cmd = Array.from({ length: 600 }, (_, i) => `echo ${i} > f${i}.txt`).join("; ");
    const r = shellWritePaths(parser, cmd, { cwd: CWD });
    expect(r.paths).toHaveLength(500);
    expect(r.truncated).toBe(true);
  });

  it("never throws on arbitrary input and only returns absolute paths (property)", () => {
    const shellish = fc
      .array(fc.constantFrom("echo", " ", ">", ">>", "2>", "&>", "|", "tee", "-a", "&&", ";", "cd", "..", "x", "'", '"', "$X", "(", ")", "<<EOF\n", "EOF\n", "\\", "~", "*", "$(", "`", "\n"), {
        maxLength: 40,
      })
      .map((a) => a.join(""));
    fc.assert(
      fc.property(fc.oneof(shellish, fc.string({ maxLength: 200 })), (cmd) => {
        const r = run(cmd);
        for (const p of r.paths) expect(p.startsWith("/")).toBe(true);
        expect(r.paths.length).toBeLessThanOrEqual(500);
      }),
      { numRuns: 1000 },
    );
  });
});
