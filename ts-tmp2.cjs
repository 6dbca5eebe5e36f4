const Parser = require("tree-sitter"); const TS = require("tree-sitter-typescript"); const Py = require("tree-sitter-python"); const JS = require("tree-sitter-javascript");
const fs = require("fs");
for (const [lang, dir] of [[TS.typescript, "typescript"], [TS.tsx, "typescript"], [JS, "javascript"], [Py, "python"]]) {
  for (const f of ["definitions", "references"]) {
    try { new Parser.Query(lang, fs.readFileSync(`grammars/${dir}/${f}.scm`, "utf8")); console.log("ok", dir, f); } catch (e) { console.log("FAIL", dir, f, e.message); }
  }
}
