#!/usr/bin/env node
// How many edits a realistic two-agent session on one set of files gets denied, by this build and by an earlier one,
// with the same script and the same edits. Two agents (Claude Code in one clone, Codex in another) work through four
// real files of Python's standard library, each editing its own functions: one from the top of each file, one from
// the bottom, so that their edits of a file merge cleanly; in two of the files the second agent also edits a line the
// first one changed, which `git merge` would report as a conflict. A denial of a clean edit is a false alarm: the
// agent stops for nothing. Denying the edits that meet is what a user wants.
//
//   node benchmarks/denials.mjs [--before PATH/bin/comity.cjs | --before-commit REV | --no-before] [--mode embedded|served]
//
// `--before-commit REV` checks REV out under benchmarks/.work/comity-REV, installs and builds it once, and
// plays the same script with it. The default REV is the last commit before edits were compared by line range.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { runScenario } from "../test/scenarios/runner.mjs";
import { machine, table } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..");
const { values } = parseArgs({
  options: { before: { type: "string" }, "before-commit": { type: "string", default: "6dff70c" }, "no-before": { type: "boolean", default: false }, mode: { type: "string", default: "embedded" } },
});

/** The stdlib files the agents work on, as the machine's python3 has them. */
function stdlibFiles() {
  const r = spawnSync("python3", ["-c", "import textwrap, shlex, fnmatch, glob\nfor m in (textwrap, shlex, fnmatch, glob): print(m.__file__)"], { encoding: "utf8" });
  if (r.status !== 0) throw new Error("python3 is needed: its standard library is the code the agents edit");
  return r.stdout
    .trim()
    .split("\n")
    .map((abs) => ({ name: `lib/${path.basename(abs)}`, text: fs.readFileSync(abs, "utf8") }));
}

/** The `def` lines of a file's functions and methods, each once, in file order. */
function defLines(text) {
  const seen = new Set();
  const out = [];
  for (const m of text.matchAll(/^[ \t]*def \w+\(.*\):[ \t]*$/gm)) {
    if (seen.has(m[0]) || text.indexOf(m[0]) !== m.index) continue; // a line that occurs twice cannot be replaced unambiguously
    seen.add(m[0]);
    out.push(m[0]);
  }
  return out;
}

/**
 * The script: a turn per file for each agent (prompt, edits, stop); A edits the file's first two functions, B its
 * last two, and in files 0 and 2 B also edits A's first.
 */
function script(files) {
  const steps = [
    { session: "A", do: "start" },
    { session: "B", do: "start" },
  ];
  const edits = [];
  files.forEach((f, k) => {
    const defs = defLines(f.text);
    if (defs.length < 4) throw new Error(`${f.name}: too few functions`);
    const [a1, a2, b1, b2] = [defs[0], defs[1], defs.at(-1), defs.at(-2)];
    const edit = (session, line, meets) => {
      steps.push({ session, do: "edit", file: f.name, replace: [line, `${line}  # ${session}: reviewed`] });
      edits.push({ step: steps.length - 1, meets });
    };
    steps.push({ session: "A", do: "prompt", text: `Tidy ${f.name}.` }, { session: "B", do: "prompt", text: `Review ${f.name}.` });
    edit("A", a1, false);
    edit("B", b1, false);
    edit("A", a2, false);
    edit("B", b2, false);
    if (k % 2 === 0) edit("B", a1, true);
    steps.push({ session: "A", do: "stop" }, { session: "B", do: "stop" });
  });
  return {
    scenario: {
      name: "two agents on four real files",
      file: "denials",
      repos: { app: { fixture: "none", files: Object.fromEntries(files.map((f) => [f.name, f.text])) } },
      sessions: { A: { host: "claude_code", clone: "one", label: "alice" }, B: { host: "codex", clone: "two", label: "bob" } },
      steps,
    },
    edits,
  };
}

/** A built CLI of an earlier commit, checked out and built once under benchmarks/.work. */
function beforeBin(rev) {
  const dir = path.join(here, ".work", `comity-${rev}`);
  // Builds before the CommonJS entry have bin/comity.js.
  const bin = () => ["comity.cjs", "comity.js"].map((f) => path.join(dir, "bin", f)).find((f) => fs.existsSync(f));
  if (fs.existsSync(path.join(dir, "dist"))) return bin();
  const run = (cmd, args, cwd) => {
    process.stderr.write(`$ ${cmd} ${args.join(" ")}  (in ${cwd})\n`);
    const r = spawnSync(cmd, args, { cwd, stdio: ["ignore", 2, 2] });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed`);
  };
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  run("git", ["clone", "-q", repo, dir], repo);
  run("git", ["checkout", "-q", rev], dir);
  run("npm", ["ci", "--no-audit", "--no-fund"], dir);
  run("npm", ["run", "build"], dir);
  return bin();
}

async function play(bin, s) {
  const r = await runScenario(s.scenario, { mode: values.mode, bin });
  const denied = s.edits.filter((e) => r.transcript[e.step]?.views[0]?.denied !== null && r.transcript[e.step]?.views[0]?.denied !== undefined);
  return { denials: denied.length, clean: denied.filter((e) => !e.meets).length, meets: denied.filter((e) => e.meets).length };
}

const s = script(stdlibFiles());
const meets = s.edits.filter((e) => e.meets).length;
const builds = [["this checkout", path.join(repo, "bin", "comity.cjs")]];
// A smoke run (`--no-before`) plays this checkout alone: the earlier build is a clone, `npm ci` and a build, minutes.
if (!values["no-before"]) {
  const before = values.before ?? beforeBin(values["before-commit"]);
  builds.unshift([values.before === undefined ? `before (${values["before-commit"]})` : `before (${values.before})`, before]);
}
const rows = [];
for (const [name, bin] of builds) {
  const r = await play(bin, s);
  // The target holds for this checkout only: no clean edit denied, every edit that meets denied once.
  const target = bin === builds.at(-1)?.[1] ? (r.clean === 0 && r.meets === meets ? "met" : "NOT met") : "";
  rows.push([name, String(s.edits.length), String(r.denials), `${r.clean} of ${s.edits.length - meets}`, `${r.meets} of ${meets}`, target]);
}
console.log(
  `Two agents (Claude Code, Codex; ${values.mode}), four files of Python's standard library, ${s.edits.length} edits, ${meets} of which meet a line the other agent changed; policy first_contact; ${machine()}\n`,
);
console.log(table(["build", "edits", "denied", "clean edits denied (false alarms)", "edits that meet, denied", "target"], rows));
