import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { crateCodeNames, crateDirOf, createCrateNames, withCrateNames } from "../../src/packages/crate-names.js";
import type { TextReader } from "../../src/packages/public-names.js";

const ROOT = "/ws/app";
/** Files by path under ROOT, read as the engine's reader reads them (null where missing), with every read counted. */
function files(texts: Record<string, string>): TextReader & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    read(abs) {
      reads.push(abs);
      return texts[path.relative(ROOT, abs)] ?? null;
    },
  };
}
const crate = (name: string, rest = "") => `[package]\nname = "${name}"\nversion = "0.1.0"\n${rest}`;

describe("crateCodeNames: the names a crate's code gives its dependencies, where they are not the crates' own", () => {
  it("a renamed dependency, in any dependency table and any target's", () => {
    const reader = files({
      "Cargo.toml": crate(
        "app",
        '[dependencies]\nstore = { package = "acme-store", version = "1" }\nserde = "1"\nsame = { package = "same" }\n' +
          '[dev-dependencies]\nmock-db = { package = "acme-mock" }\n' +
          '[target.\'cfg(unix)\'.build-dependencies]\ncc2 = { package = "cc", version = "1" }\n',
      ),
    });
    expect([...crateCodeNames(ROOT, ROOT, reader)].sort()).toEqual([
      ["cc2", "cc"],
      ["mock_db", "acme-mock"],
      ["store", "acme-store"],
    ]);
  });

  it("a workspace's renamed dependency, inherited by a member (dotted or inline), from the nearest manifest that declares the workspace", () => {
    const reader = files({
      "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n\n[workspace.dependencies]\ndb = { package = "acme-store", version = "1" }\nlog = "0.4"\n',
      "crates/svc/Cargo.toml": crate("svc", "[dependencies]\ndb.workspace = true\nlog = { workspace = true }\n"),
    });
    expect([...crateCodeNames(path.join(ROOT, "crates/svc"), ROOT, reader)]).toEqual([["db", "acme-store"]]);
  });

  it("a path dependency's library named apart from its package (the rename wins where both are)", () => {
    const reader = files({
      "Cargo.toml": crate("app", '[dependencies]\nacme-store = { path = "vendor/store" }\nrenamed = { package = "acme-store", path = "vendor/store" }\nplain = { path = "vendor/plain" }\n'),
      "vendor/store/Cargo.toml": crate("acme-store", '[lib]\nname = "acmestore"\n'),
      "vendor/plain/Cargo.toml": crate("plain", '[lib]\nname = "plain"\n'),
    });
    expect([...crateCodeNames(ROOT, ROOT, reader)].sort()).toEqual([
      ["acmestore", "acme-store"],
      ["renamed", "acme-store"],
    ]);
  });

  it("nothing from a manifest that is missing or is not TOML, nor from a workspace above the repo's root", () => {
    expect(crateCodeNames(ROOT, ROOT, files({})).size).toBe(0);
    expect(crateCodeNames(ROOT, ROOT, files({ "Cargo.toml": "[package\nname = " })).size).toBe(0);
    const above = files({ "../Cargo.toml": '[workspace]\n[workspace.dependencies]\ndb = { package = "acme-store" }\n', "Cargo.toml": crate("app", "[dependencies]\ndb.workspace = true\n") });
    expect(crateCodeNames(ROOT, ROOT, above).size).toBe(0);
  });
});

describe("createCrateNames and withCrateNames", () => {
  it("a Rust file's references name its crate's dependencies as the manifest does; manifests are read once a crate, and other files read nothing", () => {
    const reader = files({
      "Cargo.toml": crate("app", '[dependencies]\nstore = { package = "acme-store" }\n'),
      "tools/Cargo.toml": crate("tools", '[dependencies]\nstore = "3"\n'),
    });
    const crates = createCrateNames(ROOT, reader);
    const names = (file: string) => crates.ofFile(file);
    const refs = [
      { kind: "import", name: "open", module: "store" },
      { kind: "import", name: "Client", module: "other" },
      { kind: "call", name: "x", module: null },
    ];
    expect(withCrateNames("src/main.rs", refs, names("src/main.rs"))).toEqual([
      { kind: "import", name: "open", module: "acme-store" },
      { kind: "import", name: "Client", module: "other" },
      { kind: "call", name: "x", module: null },
    ]);
    // (its own crate, with a `store` of its own)
    expect(withCrateNames("tools/src/bin/t.rs", refs, names("tools/src/bin/t.rs"))).toEqual(refs);
    const before = reader.reads.length;
    names("src/lib.rs");
    expect(reader.reads.length).toBe(before + 2); // src/, then the root's manifest, found; nothing parsed again
    expect(withCrateNames("src/main.ts", refs, names("src/main.ts"))).toEqual(refs);
    expect(reader.reads.length).toBe(before + 2);
  });

  it("crateDirOf: the nearest folder with a manifest, never above the repo's root", () => {
    const reader = files({ "Cargo.toml": crate("app"), "crates/a/Cargo.toml": crate("a") });
    expect(crateDirOf(ROOT, "crates/a/src/deep/x.rs", reader)).toBe(path.join(ROOT, "crates/a"));
    expect(crateDirOf(ROOT, "src/x.rs", reader)).toBe(ROOT);
    expect(crateDirOf(ROOT, "src/x.rs", files({ "../Cargo.toml": crate("outer") }))).toBeNull();
  });
});
