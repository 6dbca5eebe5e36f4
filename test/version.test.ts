import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CLI_VERSION } from "../src/version.js";
import { runBuiltCli } from "./helpers/run-cli.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

describe("the CLI's version", () => {
  it("is package.json's, in the library and from comity --version", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
    expect(CLI_VERSION).toBe(pkg.version);
    expect(runBuiltCli(["--version"], { cwd: root }).stdout).toBe(`${pkg.version}\n`);
  });
});
