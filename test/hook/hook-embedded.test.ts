import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commit, createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { readHookLog } from "../helpers/hook-fixture.js";
import hostTerminal from "../../src/hook/host-terminal.cjs";
import { runBuiltCliAsync } from "../helpers/run-cli.js";

// Coordination with no server: no COMITY_API_URL, no comity login. Every hook is the built CLI with the command
// `comity init` writes; what each agent would see is read from its output.

let sb: Sandbox;
let main: string;
let wt: string;
let configDir: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  sb = createSandbox();
  // A repo without a remote, and a worktree of it: its root commit names it, so both meet.
  main = initRepo(sb, "app");
  commit(sb, main, "src/config.ts", "export function parseConfig(path: string): object {\n  return { path };\n}\n");
  commit(sb, main, "src/main.ts", 'import { parseConfig } from "./config.js";\n\nexport const cfg = parseConfig("a.json");\n');
  wt = path.join(sb.dir, "app-feature");
  sb.git(main, "worktree", "add", "-q", "-b", "feature", wt);
  configDir = path.join(sb.dir, "..", "comity-config");
  env = { ...sb.env, COMITY_CONFIG_DIR: configDir };
});
afterEach(() => sb.cleanup());

const store = () => path.join(configDir, "coordination.sqlite");
const { procStat } = hostTerminal;

/** Whether a process this one started has `file` open (a hook process that reached the store). */
function childHasOpen(file: string): boolean {
  const real = fs.realpathSync(file);
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (procStat(Number(pid))?.ppid !== process.pid) continue;
      for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === real) return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

interface Seen {
  denied: string | null;
  context: string | null;
  raw: string;
}

/** One Claude Code hook event; what its model sees (a PreToolUse denial's reason, or additional context). */
async function claude(session: string, cwd: string, event: string, extra: Record<string, unknown> = {}, label = session): Promise<Seen> {
  const payload = { session_id: session, transcript_path: `/tmp/${session}.jsonl`, cwd, hook_event_name: event, ...extra };
  const r = await runBuiltCliAsync(["hook", "--tool", "claude_code", "--event", event], { cwd, env: { ...env, COMITY_AGENT_NAME: label }, input: JSON.stringify(payload) });
  expect(r.status).toBe(0);
  if (r.stdout.trim() === "") return { denied: null, context: null, raw: "" };
  const out = JSON.parse(r.stdout) as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string; additionalContext?: string } };
  const h = out.hookSpecificOutput ?? {};
  return { denied: h.permissionDecision === "deny" ? (h.permissionDecisionReason ?? "") : null, context: h.additionalContext ?? null, raw: r.stdout };
}

const edit = (file: string, toolUseId: string) => ({ tool_name: "Edit", tool_input: { file_path: file, old_string: "x", new_string: "y" }, tool_use_id: toolUseId });

describe("embedded coordination (no server)", () => {
  it("tells the second editor of a file before its edit, and a session using a symbol another broke, across two worktrees of a repo without a remote", async () => {
    await claude("A", main, "SessionStart", { source: "startup" }, "alice");
    await claude("B", wt, "SessionStart", { source: "startup" }, "bob");
    expect(fs.existsSync(store())).toBe(true);

    // A edits config.ts and breaks parseConfig.
    const config = path.join(main, "src/config.ts");
    expect((await claude("A", main, "PreToolUse", edit(config, "a1"), "alice")).denied).toBeNull();
    fs.writeFileSync(config, "export function parseConfig(path: string, strict: boolean): object {\n  return { path, strict };\n}\n");
    await claude("A", main, "PostToolUse", { ...edit(config, "a1"), tool_response: {} }, "alice");

    // B, in the worktree, is about to edit main.ts, which calls parseConfig: denied once, with the whole warning.
    const mainTs = path.join(wt, "src/main.ts");
    const b1 = await claude("B", wt, "PreToolUse", edit(mainTs, "b1"), "bob");
    expect(b1.denied).toMatch(/CF-\d+ breaking_change/);
    expect(b1.denied).toContain("parseConfig");
    expect(b1.denied).toContain('"alice"');
    // The retry goes through.
    expect((await claude("B", wt, "PreToolUse", edit(mainTs, "b2"), "bob")).denied).toBeNull();

    // B then goes for config.ts, which A holds: told before the edit.
    const b3 = await claude("B", wt, "PreToolUse", edit(path.join(wt, "src/config.ts"), "b3"), "bob");
    expect(b3.denied).toMatch(/CF-\d+ edit_conflict/);
    expect(b3.denied).toContain("src/config.ts");

    // bob retries, and so holds it too; A learns at its next prompt that bob joined its file.
    expect((await claude("B", wt, "PreToolUse", edit(path.join(wt, "src/config.ts"), "b4"), "bob")).denied).toBeNull();
    const a2 = await claude("A", main, "UserPromptSubmit", { prompt: "go on" }, "alice");
    expect(a2.context).toMatch(/CF-\d+ edit_conflict/);

    // comity status sees both sessions, what they hold and changed, and the collisions.
    const st = await runBuiltCliAsync(["status", "--json"], { cwd: main, env });
    expect(st.status).toBe(0);
    const report = JSON.parse(st.stdout) as {
      schema: string;
      mode: string;
      sessions: Array<{ label: string; files: string[]; changes: Array<{ qualified_name: string; compatibility: string }>; intents: Array<{ paths: string[] }> }>;
      conflicts: Array<{ kind: string; told: boolean }>;
    };
    expect(report).toMatchObject({ schema: "comity.status/1", mode: "embedded" });
    expect(report.sessions.map((s) => s.label)).toEqual(["alice", "bob"]);
    expect(report.sessions[0]?.changes).toEqual([expect.objectContaining({ qualified_name: "parseConfig", compatibility: "breaking" })]);
    expect(report.sessions[1]?.intents.flatMap((i) => i.paths).sort()).toEqual(["src/config.ts", "src/main.ts"]);
    expect(report.conflicts.map((c) => [c.kind, c.told])).toEqual([
      ["breaking_change", true],
      ["edit_conflict", true],
    ]);
    const text = await runBuiltCliAsync(["status"], { cwd: wt, env });
    expect(text.stdout).toContain("2 active sessions");
    expect(text.stdout).toMatch(/alice A\s+Claude Code\s+main/);
    expect(text.stdout).toContain("changed parseConfig in src/config.ts");
    expect(readHookLog(configDir)).toEqual([]);
  });

  it("loses nothing with 20 hook processes at once: every intent, every warning", async () => {
    // Advisory, so that every edit goes through and each process's answer is known in advance.
    expect((await runBuiltCliAsync(["policy", "advisory"], { cwd: main, env })).stdout).toMatch(/^advisory \(/);
    const config = path.join(main, "src/config.ts");
    await claude("H", main, "PreToolUse", edit(config, "h1"), "holder");
    const files = Array.from({ length: 20 }, (_, i) => path.join(wt, `src/f${i}.ts`));
    const answers = await Promise.all(
      files.map(async (f, i) => {
        const own = await claude(`S${i}`, wt, "PreToolUse", edit(f, `own${i}`), `agent${i}`);
        // Then, in the same breath as the nineteen others, the file the holder holds.
        return [own, await claude(`S${i}`, wt, "PreToolUse", edit(path.join(wt, "src/config.ts"), `held${i}`), `agent${i}`)] as const;
      }),
    );
    for (const [own, held] of answers) {
      expect(own.raw).toBe("");
      // Claude Code shows PreToolUse context beside the tool's result: the warning comes with the edit.
      expect(held.context).toMatch(/CF-\d+ edit_conflict: `src\/config\.ts` is also being changed by Claude Code session H \("holder"/);
    }
    // Each edit's PostToolUse, twenty at once (each now told of the others that joined after it).
    await Promise.all(files.map((_, i) => claude(`S${i}`, wt, "PostToolUse", { ...edit(path.join(wt, "src/config.ts"), `held${i}`), tool_response: {} }, `agent${i}`)));
    // The holder is told that each of the twenty joined, once each.
    const told = await claude("H", main, "UserPromptSubmit", { prompt: "next" }, "holder");
    expect(new Set(told.context?.match(/CF-\d+ edit_conflict/g) ?? []).size).toBe(20);
    for (let i = 0; i < 20; i++) expect(told.context).toContain(`"agent${i}"`);
    expect((await claude("H", main, "UserPromptSubmit", { prompt: "again" }, "holder")).context ?? "").not.toMatch(/CF-\d+/);
    // A hook fails open here only where its budget ran out (twenty Node processes at once on a CI machine's two busy
    // cores may take longer than a host gives them), and then what it did is applied by the next hook: every session
    // holds what it asked for, its own file and the held one. Any other line is a failure (checked first: it says why).
    for (const line of readHookLog(configDir)) expect(line).toMatch(/\t(the hook ran past \d+ ms and was ended|database is locked)$/);
    const st = JSON.parse((await runBuiltCliAsync(["status", "--json"], { cwd: main, env })).stdout) as { sessions: Array<{ external_id: string; intents: Array<{ paths: string[] }> }> };
    expect(st.sessions).toHaveLength(21);
    for (let i = 0; i < 20; i++) {
      const s = st.sessions.find((x) => x.external_id === `S${i}`);
      expect(s?.intents.flatMap((x) => x.paths).sort()).toEqual(["src/config.ts", `src/f${i}.ts`]);
    }
  }, 120_000);

  it("does not report a file as being changed when an edit left it as it was: the next editor of it is told nothing", async () => {
    const config = path.join(main, "src/config.ts");
    const text = fs.readFileSync(config, "utf8");
    // A writes the file with the bytes it already had (a Write of the same text), and its turn goes on.
    expect((await claude("A", main, "PreToolUse", { tool_name: "Write", tool_input: { file_path: config, content: text }, tool_use_id: "a1" })).denied).toBeNull();
    fs.writeFileSync(config, text);
    await claude("A", main, "PostToolUse", { tool_name: "Write", tool_input: { file_path: config, content: text }, tool_response: {}, tool_use_id: "a1" });
    await claude("A", main, "Stop", { stop_hook_active: false, last_assistant_message: "Done." });
    // B, in the worktree, edits the same file: A changed nothing there, so nothing is said.
    const b = await claude("B", wt, "PreToolUse", edit(path.join(wt, "src/config.ts"), "b1"));
    expect(b).toEqual({ denied: null, context: null, raw: "" });
    const st = JSON.parse((await runBuiltCliAsync(["status", "--json"], { cwd: main, env })).stdout) as { sessions: Array<{ external_id: string; files: string[] }> };
    expect(st.sessions.find((s) => s.external_id === "A")?.files).toEqual([]);
  });

  it("does not report a file as changed when the edit meant for it never ran: the next editor is not denied", async () => {
    const config = path.join(main, "src/config.ts");
    const other = path.join(main, "src/main.ts");
    // A means to edit both files; the user refuses the first edit (nothing changes there), the second runs.
    expect((await claude("A", main, "PreToolUse", edit(config, "a1"))).denied).toBeNull();
    expect((await claude("A", main, "PreToolUse", edit(other, "a2"))).denied).toBeNull();
    fs.appendFileSync(other, "// more\n");
    await claude("A", main, "PostToolUse", { ...edit(other, "a2"), tool_response: {} });
    await claude("A", main, "Stop", { stop_hook_active: false, last_assistant_message: "Done." });
    // B, in the worktree, edits config.ts: A holds nothing any more (its turn ended) and never changed it.
    expect((await claude("B", wt, "PreToolUse", edit(path.join(wt, "src/config.ts"), "b1"))).denied).toBeNull();
    // main.ts, which A did change, still tells B.
    expect((await claude("B", wt, "PreToolUse", edit(path.join(wt, "src/main.ts"), "b2"))).denied).toMatch(/CF-\d+ edit_conflict: `src\/main\.ts`/);
  });

  it("moves a corrupt store aside with one hook.log line, rebuilds it, and answers as if it were new", async () => {
    fs.mkdirSync(configDir, { recursive: true });
    fs.writeFileSync(store(), "this is not a database, it only has its name".repeat(200));
    const config = path.join(main, "src/config.ts");
    expect((await claude("A", main, "PreToolUse", edit(config, "a1"))).denied).toBeNull();
    const log = readHookLog(configDir);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/embedded store unusable \(SQLITE_NOTADB.*moved to .*coordination\.sqlite\.broken-/);
    expect(fs.readdirSync(configDir).filter((f) => f.startsWith("coordination.sqlite.broken-"))).toHaveLength(1);
    // The new store works: a second session is told of the first.
    expect((await claude("B", wt, "PreToolUse", edit(path.join(wt, "src/config.ts"), "b1"))).denied).toMatch(/edit_conflict/);
  });

  it("waits for another process's transaction, and fails open (nothing printed, one hook.log line) only past the busy timeout", async () => {
    const config = path.join(main, "src/config.ts");
    await claude("A", main, "PreToolUse", edit(config, "a1"));
    const { default: Sqlite } = await import("better-sqlite3");
    const other = new Sqlite(store());
    try {
      // Held until the hook has the store open (it then waits on the lock): the hook waits, then answers as usual.
      other.exec("BEGIN IMMEDIATE");
      const waiting = claude("B", wt, "PreToolUse", edit(path.join(wt, "src/config.ts"), "b1"));
      for (let i = 0; i < 2000 && !childHasOpen(store()); i++) await new Promise((r) => setTimeout(r, 5));
      other.exec("COMMIT");
      expect((await waiting).denied).toMatch(/CF-\d+ edit_conflict/);
      expect(readHookLog(configDir)).toEqual([]);
      // Held past the hook's budget (it waits until shortly before its watchdog): the agent sees nothing, the log
      // says why.
      other.exec("BEGIN IMMEDIATE");
      const late = await claude("C", wt, "PreToolUse", edit(path.join(wt, "src/config.ts"), "c1"));
      other.exec("COMMIT");
      expect(late.raw).toBe("");
      expect(readHookLog(configDir)).toEqual([expect.stringMatching(/\tfail-open\tclaude_code\tPreToolUse\t.*database is locked/)]);
      // What C did is not lost: it went on with its edit without an answer; the next hook (another session's, on
      // another file) records it, so C holds the file, and what C was not told in time is told at its next edit.
      expect((await claude("D", wt, "PreToolUse", edit(path.join(wt, "src/main.ts"), "d1"))).denied).toBeNull();
      expect(fs.readdirSync(path.join(configDir, "pending-events"))).toEqual([]);
      const st = JSON.parse((await runBuiltCliAsync(["status", "--json"], { cwd: main, env })).stdout) as { sessions: Array<{ external_id: string; intents: Array<{ paths: string[] }> }> };
      expect(st.sessions.find((x) => x.external_id === "C")?.intents.flatMap((x) => x.paths)).toEqual(["src/config.ts"]);
      expect((await claude("C", wt, "PreToolUse", edit(path.join(wt, "src/config.ts"), "c2"))).denied).toMatch(/CF-\d+ edit_conflict: `src\/config\.ts`/);
    } finally {
      other.close();
    }
  }, 30_000);

  it("applies every event that hooks out of time left, more than a few, at the next hook that has the time", async () => {
    const { default: Sqlite } = await import("better-sqlite3");
    await claude("A", main, "PreToolUse", edit(path.join(main, "src/config.ts"), "a1"));
    const other = new Sqlite(store());
    const sessions = Array.from({ length: 10 }, (_, i) => `L${i}`);
    try {
      // Held past every hook's budget: ten sessions' edits, each left for the next hook.
      other.exec("BEGIN IMMEDIATE");
      const late = await Promise.all(sessions.map((id, i) => claude(id, wt, "PreToolUse", edit(path.join(wt, `src/l${i}.ts`), `${id}-1`))));
      expect(late.map((a) => a.raw)).toEqual(sessions.map(() => ""));
    } finally {
      other.exec("COMMIT");
      other.close();
    }
    expect(readHookLog(configDir)).toHaveLength(10);
    expect((await claude("D", wt, "PreToolUse", edit(path.join(wt, "src/main.ts"), "d1"))).denied).toBeNull();
    expect(fs.readdirSync(path.join(configDir, "pending-events"))).toEqual([]);
    const st = JSON.parse((await runBuiltCliAsync(["status", "--json"], { cwd: main, env })).stdout) as { sessions: Array<{ external_id: string; intents: Array<{ paths: string[] }> }> };
    expect(sessions.map((id) => st.sessions.find((x) => x.external_id === id)?.intents.flatMap((x) => x.paths))).toEqual(sessions.map((_, i) => [`src/l${i}.ts`]));
  }, 60_000);

  it("waits its turn for the store for as long as its budget lasts, past the store's own busy timeout: the event is applied, not dropped", async () => {
    const config = path.join(wt, "src/config.ts");
    fs.writeFileSync(config, "export function parseConfig(path: string): object {\n  return { path, at: 1 };\n}\n");
    const { default: Sqlite } = await import("better-sqlite3");
    await claude("A", main, "SessionStart", { source: "startup" });
    const other = new Sqlite(store());
    try {
      // Another process holds the store (many hooks at once on a busy machine) for longer than the store's own busy
      // timeout (3 s) from the moment this hook reached it; an event after a tool has 9.5 s before its watchdog.
      other.exec("BEGIN IMMEDIATE");
      const waiting = claude("B", wt, "PostToolUse", { ...edit(config, "b1"), tool_response: {} });
      for (let i = 0; i < 2000 && !childHasOpen(store()); i++) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 4000));
      other.exec("COMMIT");
      await waiting;
    } finally {
      other.close();
    }
    expect(readHookLog(configDir)).toEqual([]);
    const st = JSON.parse((await runBuiltCliAsync(["status", "--json"], { cwd: main, env })).stdout) as { sessions: Array<{ external_id: string; files: string[] }> };
    expect(st.sessions.find((s) => s.external_id === "B")?.files).toEqual(["src/config.ts"]);
  }, 30_000);

  it("prunes what has outlived its use when a session starts, as the server does", async () => {
    const { openEmbeddedStore } = await import("../../src/coordination/embedded-store.js");
    const s = await openEmbeddedStore(store());
    const week = 8 * 24 * 3600 * 1000;
    await s.evaluate(
      { event: "pre_edit", dedupe_key: "old-1", session: { external_id: "old", tool: "codex" }, repo: { remote_fingerprints: ["ab".repeat(32)] }, paths: ["src/x.ts"] },
      Date.now() - week,
    );
    const count = async () => Number((await s.database.read((sql) => sql.all<{ n: number }>("SELECT (SELECT COUNT(*) FROM sessions) + (SELECT COUNT(*) FROM dedupe) AS n")))[0]?.n);
    expect(await count()).toBe(2);
    await s.close();
    await claude("A", main, "SessionStart", { source: "startup" });
    const again = await openEmbeddedStore(store());
    const rows = await again.database.read((sql) => sql.all<{ external_id: string }>("SELECT external_id FROM sessions ORDER BY external_id"));
    expect(rows.map((r) => r.external_id)).toEqual(["A"]);
    await again.close();
  });

  it("COMITY_API_URL=off: no coordination (no store, nothing printed at edits), the session-start briefing still given", async () => {
    env = { ...env, COMITY_API_URL: "off" };
    const config = path.join(main, "src/config.ts");
    expect((await claude("A", main, "PreToolUse", edit(config, "a1"))).raw).toBe("");
    expect((await claude("B", wt, "PreToolUse", edit(path.join(wt, "src/config.ts"), "b1"))).raw).toBe("");
    const start = await claude("C", main, "SessionStart", { source: "startup" });
    expect(start.context).toContain("Working on main");
    expect(fs.existsSync(store())).toBe(false);
    const st = await runBuiltCliAsync(["status"], { cwd: main, env });
    expect(st.stdout).toContain("Coordination is off");
  });
});
