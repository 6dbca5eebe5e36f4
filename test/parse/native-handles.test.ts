import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { openFlatParser } from "../../src/parse/native-parser.js";

// The native addon's opaque handles carry a type tag: a grammar's language (tagged by tree-sitter's own bindings)
// and a change watch (tagged by watch_tree.c) are each refused where the other is expected, with a clear error,
// instead of being read as the other's memory. In a child process, so that a crash is a failed assertion.

const addon = openFlatParser().addon;

describe.skipIf(addon === null || process.platform !== "linux")("the native addon's handles", () => {
  it("refuses a watch handle as a grammar and a grammar as a watch, and anything else as either", () => {
    const script = `
      const addon = require(${JSON.stringify(path.resolve("native/build/Release/comity_flat_parse.node"))});
      const python = require("tree-sitter-python").language;
      const watch = addon.watchOpen(100000);
      const out = {};
      const attempt = (name, fn) => { try { out[name] = fn(); } catch (e) { out[name] = "threw: " + e.message; } };
      attempt("watchAsLanguage", () => addon.language(watch));
      attempt("watchAsParse", () => addon.parse(watch, "x = 1"));
      attempt("languageAsWatch", () => addon.watchAdd(python, process.cwd()));
      attempt("languageChanged", () => addon.watchChanged(python));
      attempt("objectAsLanguage", () => addon.language({}));
      attempt("realLanguage", () => addon.language(python).names.length > 0);
      attempt("realWatch", () => addon.watchAdd(watch, ${JSON.stringify(path.resolve("native"))}));
      process.stdout.write(JSON.stringify(out));
    `;
    const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      watchAsLanguage: "threw: not a tree-sitter language",
      watchAsParse: "threw: not a tree-sitter language",
      languageAsWatch: "bad arguments",
      languageChanged: null,
      objectAsLanguage: "threw: not a tree-sitter language",
      realLanguage: true,
      realWatch: 0,
    });
  });
});
