import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EXTRACTOR_VERSION } from "../../src/symbols/extractor-version.js";

/** Another extraction's version (a fingerprint of other sources). */
const OTHER_VERSION = EXTRACTOR_VERSION === "0123456789abcdef" ? "fedcba9876543210" : "0123456789abcdef";
import { KEEP_PACKS, openOldVersionPacks } from "../../src/symbols/old-version-packs.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-packs-"));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const packsIn = (): string[] => fs.readdirSync(path.join(dir, "old-versions")).sort();

describe("old-version packs", () => {
  it("finds what an earlier run saved, by key and language, entry texts exactly as given", () => {
    const first = openOldVersionPacks(dir);
    expect(first.get("gaaa", "python")).toBeNull();
    const text = '{"v":6}\n"language":"python","symbols":[],"references":[]\n[{"code":"é \\"x\\""}]\n';
    first.add("gaaa", "python", text);
    first.add("gbbb", "typescript", "t\n");
    // Found in the same run too.
    expect(first.get("gaaa", "python")).toBe(text);
    first.save();
    const later = openOldVersionPacks(dir);
    expect(later.get("gaaa", "python")).toBe(text);
    expect(later.get("gbbb", "typescript")).toBe("t\n");
    // The language is part of the key.
    expect(later.get("gaaa", "typescript")).toBeNull();
    expect(packsIn()).toHaveLength(1);
    // A run that adds nothing writes no pack.
    later.save();
    expect(packsIn()).toHaveLength(1);
  });

  it("keeps the newest packs, drops another extractor version's, and reads past a damaged line", async () => {
    for (let i = 0; i < KEEP_PACKS + 2; i++) {
      // Packs are named by the millisecond they are written in: one run each millisecond.
      const p = openOldVersionPacks(dir, () => 1_700_000_000_000 + i);
      p.add(`g${i}`, "python", `entry ${i}`);
      p.save();
    }
    expect(packsIn()).toHaveLength(KEEP_PACKS);
    const now = openOldVersionPacks(dir);
    expect(now.get("g0", "python")).toBeNull();
    expect(now.get(`g${KEEP_PACKS + 1}`, "python")).toBe(`entry ${KEEP_PACKS + 1}`);
    // Another version's pack is not read, and the next save removes it.
    fs.writeFileSync(path.join(dir, "old-versions", `v${OTHER_VERSION}-000000000000001-1.jsonl`), `${JSON.stringify(["gx", "python", "other"])}\n`);
    const newest = packsIn()
      .filter((n) => n.startsWith(`v${EXTRACTOR_VERSION}-`))
      .at(-1) as string;
    fs.appendFileSync(path.join(dir, "old-versions", newest), `["gy","python",not json\n${JSON.stringify(["gz", "python", "fine"])}\n`);
    const again = openOldVersionPacks(dir);
    expect(again.get("gx", "python")).toBeNull();
    expect(again.get("gy", "python")).toBeNull();
    expect(again.get("gz", "python")).toBe("fine");
    again.add("gw", "python", "w");
    again.save();
    expect(packsIn().some((n) => n.startsWith(`v${OTHER_VERSION}-`))).toBe(false);
  });
});
