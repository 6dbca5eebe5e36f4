import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { changesAfterCommand, snapshotBeforeCommand } from "../../src/snapshot/command-snapshots.js";
import { createSnapshotStore } from "../../src/snapshot/snapshot-store.js";
import { discoverRepos } from "../../src/workspace/discover-repos.js";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";

let sb: Sandbox;
beforeEach(() => {
  sb = createSandbox();
});
afterEach(() => sb.cleanup());

describe("a shell command's snapshots", () => {
  it("note when the command last changed the working tree, for ranking repos; a command that changes nothing notes nothing", async () => {
    const root = initRepo(sb, "r");
    const repo = discoverRepos(root).repos[0];
    if (repo === undefined) throw new Error("no repo");
    const store = createSnapshotStore({ dir: path.join(sb.dir, "snapshots") });
    const run = async (id: string, command: () => void) => {
      await snapshotBeforeCommand(repo, { store, sessionId: "s", toolUseId: id });
      command();
      return changesAfterCommand(repo, { store, sessionId: "s", toolUseId: id });
    };
    expect((await run("t1", () => undefined)).changes).toEqual([]);
    expect(store.agentActivity(repo.root)).toBeNull();
    const when = Date.now() - 30_000;
    const after = await run("t2", () => {
      fs.writeFileSync(path.join(root, "new.txt"), "x\n");
      fs.utimesSync(path.join(root, "new.txt"), new Date(when), new Date(when));
    });
    expect(after.changes).toEqual([{ path: "new.txt", change: "added" }]);
    expect(store.agentActivity(repo.root)).toBe(Math.round(when));
  });
});
