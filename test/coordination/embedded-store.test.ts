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
