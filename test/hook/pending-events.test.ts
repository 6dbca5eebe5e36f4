import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PENDING_MAX_AGE_MS, PENDING_MAX_BYTES, PENDING_PER_EVENT, putBack, removePending, takePending, writePending } from "../../src/hook/pending-events.js";
import type { EvaluateRequest } from "../../src/coordination/wire.js";

let configDir: string;
beforeEach(() => {
  configDir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-pending-"));
});
afterEach(() => fs.rmSync(configDir, { recursive: true, force: true }));

const dir = () => path.join(configDir, "pending-events");
const request = (n: number): EvaluateRequest => ({
  event: "pre_edit",
  dedupe_key: `k${n}`,
  session: { external_id: `s${n}`, tool: "claude_code" },
  repo: { remote_fingerprints: ["ab".repeat(32)] },
  paths: [`src/f${n}.ts`],
});
/** A pid no process has now: a child that has exited and been reaped. */
const deadPid = (): number => spawnSync(process.execPath, ["-e", "0"]).pid ?? 999_999;
/** An event as a hook of pid `pid` left it. */
const leave = (at: number, pid: number, n: number): void => {
  fs.mkdirSync(dir(), { recursive: true });
  fs.writeFileSync(path.join(dir(), `${String(at).padStart(15, "0")}-${pid}-0.json`), JSON.stringify({ at, request: request(n) }));
};

describe("events a hook left for the next one", () => {
  it("are written and removed by their hook, and taken oldest first by another once a second old, each by one taker", () => {
    const now = 1_000_000_000;
    const mine = writePending(configDir, request(0), now);
    expect(mine).not.toBeNull();
    removePending(mine as string);
    expect(fs.readdirSync(dir())).toEqual([]);
    const dead = deadPid();
    leave(now - 5000, dead, 2);
    leave(now - 9000, dead, 1);
    leave(now - 100, dead, 3); // too young: most likely being applied now
    const taken = takePending(configDir, now);
    expect(taken.map((t) => [t.at, t.request.dedupe_key])).toEqual([
      [now - 9000, "k1"],
      [now - 5000, "k2"],
    ]);
    // Taken: another hook finds none of them.
    expect(takePending(configDir, now)).toEqual([]);
    // One given back is there for the next hook, as it was written.
    putBack((taken[1] as { file: string }).file);
    expect(takePending(configDir, now).map((t) => t.request.dedupe_key)).toEqual(["k2"]);
  });

  it("leaves an event whose hook still runs to that hook, and takes at most a few at once", () => {
    const now = 1_000_000_000;
    leave(now - 5000, process.ppid, 0); // (the process that started this one runs)
    leave(now - 5000, process.pid, 0); // (this process's own, which it applies itself)
    const dead = deadPid();
    for (let n = 1; n <= PENDING_PER_EVENT + 2; n++) leave(now - 4000 + n, dead, n);
    const taken = takePending(configDir, now);
    expect(taken.map((t) => t.request.dedupe_key)).toEqual(Array.from({ length: PENDING_PER_EVENT }, (_, i) => `k${i + 1}`));
    expect(fs.readdirSync(dir()).filter((f) => f.endsWith(".json"))).toHaveLength(4);
  });

  it("drops what is too old to matter, what another hook took and never finished, and what does not read as an event", () => {
    const now = 1_000_000_000;
    const dead = deadPid();
    leave(now - PENDING_MAX_AGE_MS - 1, dead, 1);
    fs.writeFileSync(path.join(dir(), `${String(now - PENDING_MAX_AGE_MS - 5).padStart(15, "0")}-${dead}-0.json.${dead}.taken`), "{}");
    fs.writeFileSync(path.join(dir(), `${String(now - 3000).padStart(15, "0")}-${dead}-1.json`), '{"at": 12, "requ');
    // (larger than any hook's request: not read at all)
    fs.writeFileSync(path.join(dir(), `${String(now - 2000).padStart(15, "0")}-${dead}-2.json`), `{"at": 12, "request": {"x": "${"a".repeat(PENDING_MAX_BYTES)}"}}`);
    expect(takePending(configDir, now)).toEqual([]);
    expect(fs.readdirSync(dir())).toEqual([]);
  });

  it("takes again an event another hook took and was ended before it applied it, not one whose taker still runs", () => {
    const now = 1_000_000_000;
    const dead = deadPid();
    leave(now - 5000, dead, 1);
    leave(now - 4000, dead, 2);
    const [first, second] = takePending(configDir, now).map((t) => t.file);
    // The first taken by a hook that was ended since; the second by one that still runs.
    fs.renameSync(first as string, (first as string).replace(/\.\d+\.taken$/, `.${dead}.taken`));
    fs.renameSync(second as string, (second as string).replace(/\.\d+\.taken$/, `.${process.ppid}.taken`));
    const again = takePending(configDir, now);
    expect(again.map((t) => t.request.dedupe_key)).toEqual(["k1"]);
    expect(again[0]?.file.endsWith(`-0.json.${process.pid}.taken`)).toBe(true);
    // Given back, it is a left event as it was written.
    putBack(again[0]?.file as string);
    expect(fs.readdirSync(dir()).sort()).toEqual([`${String(now - 5000).padStart(15, "0")}-${dead}-0.json`, `${String(now - 4000).padStart(15, "0")}-${dead}-0.json.${process.ppid}.taken`]);
  });

  it("writes nothing where the config folder cannot hold it, and says so", () => {
    const file = path.join(configDir, "a-file");
    fs.writeFileSync(file, "");
    expect(writePending(file, request(0), 1)).toBeNull();
  });
});
