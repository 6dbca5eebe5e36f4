import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openEmbeddedStore, settingsFile } from "../../src/coordination/embedded-store.js";

let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-embedded-"));
  file = path.join(dir, "coordination.sqlite");
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("the embedded store's settings", () => {
  it("keep the policy when a corrupt store is moved aside and rebuilt", async () => {
    const store = await openEmbeddedStore(file);
    await store.setPolicy("block");
    await store.close();
    expect(JSON.parse(fs.readFileSync(settingsFile(file), "utf8"))).toEqual({ policy: "block" });
    expect(fs.statSync(settingsFile(file)).mode & 0o777).toBe(0o600);
    fs.rmSync(`${file}-wal`, { force: true });
    fs.writeFileSync(file, "not a database, only its name".repeat(200));
    const moved: string[] = [];
    const rebuilt = await openEmbeddedStore(file, { onMovedAside: (_, to) => moved.push(to) });
    expect(moved).toHaveLength(1);
    expect(await rebuilt.policy()).toBe("block");
    // The core reads the rebuilt team's row at each request: the policy is there too.
    expect((await rebuilt.database.read((sql) => sql.all<{ policy: string }>("SELECT policy FROM teams")))[0]?.policy).toBe("block");
    await rebuilt.close();
  });
});

describe("an event applied late (another hook's, read back from its file)", () => {
  const request = (over: Record<string, unknown> = {}) => ({
    event: "pre_edit",
    dedupe_key: "late-1",
    session: { external_id: "L", tool: "claude_code" },
    repo: { remote_fingerprints: ["ab".repeat(32)] },
    paths: ["src/a.ts"],
    ...over,
  });
  const intents = async (s: Awaited<ReturnType<typeof openEmbeddedStore>>) => (await s.database.read((sql) => sql.all<{ n: number }>("SELECT COUNT(*) AS n FROM intents")))[0]?.n;

  it("is applied at the time it happened unless its session's turn ended since; one that is not a request is not", async () => {
    const s = await openEmbeddedStore(file);
    // Not a request as a hook builds one (a file half rewritten, or not a hook's at all): refused, nothing recorded.
    for (const bad of [request({ event: "rm -rf" }), request({ paths: "src/a.ts" }), request({ session: { external_id: "L\u0000", tool: "claude_code" } }), { at: 1 }])
      expect(await s.applyLate(bad as never, 1_000)).toBe(false);
    expect(Number(await intents(s))).toBe(0);
    expect(await s.applyLate(request() as never, 1_000)).toBe(true);
    expect(Number(await intents(s))).toBe(1);
    // The session's turn ends at 2,000: an event of before it no longer holds.
    await s.evaluate({ event: "stop", dedupe_key: "late-stop", session: { external_id: "L", tool: "claude_code" }, repo: { remote_fingerprints: ["ab".repeat(32)] } }, 2_000);
    expect(await s.applyLate(request({ dedupe_key: "late-2", paths: ["src/b.ts"] }) as never, 1_500)).toBe(false);
    await s.close();
  });
});
