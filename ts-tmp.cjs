const Parser = require("tree-sitter"); const TS = require("tree-sitter-typescript"); const Py = require("tree-sitter-python"); const JS = require("tree-sitter-javascript");
const lang = { ts: TS.typescript, tsx: TS.tsx, py: Py, js: JS }[process.argv[2]];
const p = new Parser(); p.setLanguage(lang);
const t = p.parse(process.argv[3]);
const dump = (n, d, field) => { console.log("  ".repeat(d) + (field ? field + ": " : "") + (n.isNamed ? n.type : JSON.stringify(n.type)) + (n.childCount === 0 ? " " + JSON.stringify(n.text) : "")); for (let i = 0; i < n.childCount; i++) dump(n.child(i), d + 1, n.fieldNameForChild(i)); };
dump(t.rootNode, 0);
