import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nativeChangeWatch } from "../../src/daemon/native-change-watch.js";
import { openFlatParser } from "../../src/parse/native-parser.js";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { runBuiltCli } from "../helpers/run-cli.js";

// `comity analyze` answered by the daemon from memory: never older than the tree. After each kind of change a user
// or an agent makes, the warm answer is byte for byte the one a cold run gives; with no change, it is the daemon's.

const WATCH = nativeChangeWatch();
let sb: Sandbox;
beforeEach(() => {
  sb = createSandbox();
});
afterEach(() => sb.cleanup());

describe.skipIf(WATCH === null)("the native change watch (inotify)", () => {
  it("sees every change finished before it is asked: in folders made just before, moved in, under two roots", () => {
    const watch = nativeChangeWatch();
    if (watch === null) throw new Error("no watch");
    const dir = path.join(sb.dir, "t");
    fs.mkdirSync(path.join(dir, "a/b"), { recursive: true });
    expect([watch.add(dir), watch.add(path.join(dir, "a"))]).toEqual([0, 1]);
    expect(watch.changed()).toEqual([]);
    fs.writeFileSync(path.join(dir, "a/b/f"), "x");
    expect(watch.changed()).toEqual([0, 1]);
    fs.mkdirSync(path.join(dir, "n/m"), { recursive: true });
    fs.writeFileSync(path.join(dir, "n/m/f"), "x");
    expect(watch.changed()).toEqual([0]);
    fs.writeFileSync(path.join(dir, "n/m/g"), "x"); // in a folder made since the last question
    expect(watch.changed()).toEqual([0]);
    fs.renameSync(path.join(dir, "n"), path.join(dir, "a/n"));
    expect(watch.changed()).toEqual([0, 1]);
    fs.writeFileSync(path.join(dir, "a/n/m/h"), "x");
    expect(watch.changed()).toEqual([0, 1]);
    fs.utimesSync(path.join(dir, "a/n/m/h"), new Date(0), new Date(0));
    expect(watch.changed()).toEqual([0, 1]);
    fs.rmSync(path.join(dir, "a/n"), { recursive: true });
    expect(watch.changed()).toEqual([0, 1]);
    expect(watch.changed()).toEqual([]);
    expect(watch.add(path.join(sb.dir, "missing"))).toBe(2); // nothing there to watch yet: nothing seen
  });
});

describe.skipIf(WATCH === null)("the native change watch's share of the user's inotify watches", () => {
  it("refuses a tree with more folders than its budget, keeping none of it, and still takes one that fits", () => {
    const addon = openFlatParser().addon;
    const handle = addon?.watchOpen?.(3);
    const big = path.join(sb.dir, "big");
    fs.mkdirSync(path.join(big, "a/b/c/d"), { recursive: true });
    fs.mkdirSync(path.join(sb.dir, "small/a"), { recursive: true });
    expect(addon?.watchAdd?.(handle, big)).toBe("more folders than the daemon may watch");
    expect(addon?.watchAdd?.(handle, path.join(sb.dir, "small"))).toBe(0);
    fs.writeFileSync(path.join(big, "a/f"), "x");
    fs.writeFileSync(path.join(sb.dir, "small/a/f"), "x");
    expect(addon?.watchChanged?.(handle)).toEqual([0]);
    addon?.watchClose?.(handle);
    expect(addon?.watchChanged?.(handle)).toBeNull();
  });
});

describe.skipIf(WATCH === null)("comity analyze through the daemon", () => {
  it("answers from memory while nothing changed, and after every kind of change gives what a cold run gives", () => {
    const config = path.join(sb.dir, "..", "cfg");
    const env: NodeJS.ProcessEnv = { ...sb.env, COMITY_CONFIG_DIR: config };
    delete env["COMITY_DAEMON"];
    const app = initRepo(sb, "app");
    sb.write("app/src/config.ts", "export function parseConfig(text: string) {\n  return JSON.parse(text);\n}\n");
    sb.write("app/src/use.ts", 'import { parseConfig } from "./config";\nexport const c = parseConfig("{}");\n');
    sb.git(app, "add", "-A");
    sb.git(app, "commit", "-q", "-m", "code");
    // A linked worktree beside it: its git folder lives in the main repo's.
    const feature = path.join(sb.dir, "app-feature");
    sb.git(app, "worktree", "add", "-q", feature, "-b", "feature");
    const commitAll = (cwd: string, message: string): void => {
      sb.git(cwd, "add", "-A");
      sb.git(cwd, "commit", "-q", "-m", message);
    };
    const status = () => (JSON.parse(runBuiltCli(["daemon", "status", "--json"], { cwd: sb.dir, env }).stdout) as { analyze: { hits: number } }).analyze;
    const analyze = (cwd: string, daemon: boolean) => {
      const r = runBuiltCli(["analyze", "--json"], { cwd, env: daemon ? env : { ...env, COMITY_DAEMON: "off" } });
      expect(r.stderr).toBe("");
      return `${r.status}\n${r.stdout}`;
    };
    try {
      expect(runBuiltCli(["daemon", "start"], { cwd: sb.dir, env }).status).toBe(0);
      for (const where of [app, feature, path.join(app, "src")]) {
        for (let i = 0; i < 2; i++) analyze(where, true); // the folder is watched from the first run, kept from the second
        const hits = status().hits;
        expect(analyze(where, true)).toBe(analyze(where, false));
        expect(status().hits).toBe(hits + 1);
      }
      expect(runBuiltCli(["daemon", "status"], { cwd: sb.dir, env }).stdout).toMatch(/comity analyze: [1-9]\d* answered from memory, \d+ run cold; \d+ answers kept, \d+ folders watched\n/);
      const steps: Array<[string, string, () => void]> = [
        ["an edit", app, () => fs.appendFileSync(path.join(app, "src/config.ts"), "export const x = 1;\n")],
        ["a breaking change", app, () => sb.write("app/src/config.ts", "export function parseConfig(text: string, strict: boolean) {\n  return JSON.parse(text);\n}\n")],
        ["a file in a folder made just now", app, () => sb.write("app/src/deep/er/new.ts", "export const n = 1;\n")],
        ["a file removed", app, () => fs.rmSync(path.join(app, "src/use.ts"))],
        ["a folder moved", app, () => fs.renameSync(path.join(app, "src/deep"), path.join(app, "lib"))],
        ["a commit", app, () => commitAll(app, "more")],
        ["a new branch", app, () => sb.git(app, "checkout", "-q", "-b", "topic")],
        ["an edit in the worktree", feature, () => fs.appendFileSync(path.join(feature, "src/use.ts"), "export const y = 2;\n")],
        ["a commit in the worktree (its git folder lies in the main repo's)", feature, () => commitAll(feature, "wt")],
        ["an edit outside the folder analysed, in its repo", path.join(app, "src"), () => sb.write("app/README.md", "changed\n")],
        ["a file's mode", app, () => fs.chmodSync(path.join(app, "src/config.ts"), 0o755)],
      ];
      for (const [what, where, change] of steps) {
        for (let i = 0; i < 2; i++) analyze(where, true);
        const before = analyze(where, true);
        change();
        const warm = analyze(where, true);
        expect(warm, what).toBe(analyze(where, false));
        expect(warm, what).not.toBe(before);
      }
    } finally {
      runBuiltCli(["daemon", "stop"], { cwd: sb.dir, env });
    }
  }, 120_000);
});
