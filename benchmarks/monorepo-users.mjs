#!/usr/bin/env node
// `comity analyze` on a real monorepo where one agent inserted a required parameter at the front of a helper that
// the repo's other packages import by the package's name: does analyze list every file that uses it, and only those,
// name the change as an insertion, and how long does it take? The oracle is the TypeScript compiler's own parser
// (every file that names the package, parsed; an import, re-export, require or import type of the symbol, or of
// the whole module, counts), the anchor `git status` of the same repo, run by run (interleaved); warm is the same
// question through the per-user daemon against `node -e 0`. The repo is a clone the caller brings (the README says
// which, at which commit); the helper's file is restored at the end.
// Usage: node benchmarks/monorepo-users.mjs --repo DIR --file REL --symbol NAME --insert "meta: Meta" [--runs 9]
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { gitEnv, machine, median, table } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, "..", "bin", "comity.cjs");
const { values } = parseArgs({
  options: { repo: { type: "string" }, file: { type: "string" }, symbol: { type: "string" }, insert: { type: "string" }, runs: { type: "string", default: "9" } },
});
if (values.repo === undefined || !fs.existsSync(path.join(values.repo, ".git"))) {
  console.log(`(no monorepo given or found: pass --repo DIR of a clone; see benchmarks/README.md for the ones measured)`);
  process.exit(0);
}
const root = path.resolve(values.repo);
const rel = values.file;
const symbol = values.symbol;
const runs = Number(values.runs);
if (rel === undefined || symbol === undefined || values.insert === undefined) throw new Error("--file, --symbol and --insert are needed");
const env = { ...gitEnv(), COMITY_CONFIG_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "comity-bench-monorepo-")) };
delete env.COMITY_DAEMON;
const git = (...args) => spawnSync("git", args, { cwd: root, env, encoding: "utf8", maxBuffer: 1 << 28 });
if (git("status", "--porcelain", "--", rel).stdout !== "") throw new Error(`${rel} has changes of its own in ${root}: start from a clean clone`);

/** The package the helper's file belongs to: the nearest package.json above it. */
function owner(file) {
  for (let dir = path.posix.dirname(file); ; dir = path.posix.dirname(dir)) {
    const manifest = path.join(root, dir, "package.json");
    if (fs.existsSync(manifest)) return { name: JSON.parse(fs.readFileSync(manifest, "utf8")).name, dir };
    if (dir === "." || dir === "") throw new Error(`no package.json above ${file}`);
  }
}
const pkg = owner(rel);

/** The helper with `insert` as its first parameter: after the `(` that opens `export function NAME<...>(`. */
function inserted(text) {
  const at = text.indexOf(`export function ${symbol}`);
  if (at < 0) throw new Error(`no "export function ${symbol}" in ${rel}`);
  let depth = 0;
  for (let i = at + `export function ${symbol}`.length; i < text.length; i++) {
    const c = text[i];
    if (c === "<") depth++;
    else if (c === ">" && text[i - 1] !== "=") depth--;
    else if (c === "(" && depth === 0) return `${text.slice(0, i + 1)}${values.insert}, ${text.slice(i + 1)}`;
  }
  throw new Error(`no parameter list after ${symbol}`);
}

/** The source file a module path names (its extension or index left out), repo-relative, or null. */
function sourceOf(base) {
  for (const ext of [".ts", ".tsx", ".mts", ".js", "/index.ts", "/index.tsx", "/index.js"]) if (fs.existsSync(path.join(root, base + ext))) return base + ext;
  return null;
}

/** Whether a module exports `symbol` from the helper's file: it is that file, or re-exports it from one that does. */
function reexports(file, seen) {
  if (file === null || seen.has(file)) return false;
  seen.add(file);
  if (file === rel) return true;
  const source = ts.createSourceFile(file, fs.readFileSync(path.join(root, file), "utf8"), ts.ScriptTarget.Latest, true);
  return source.statements.some((st) => {
    if (!ts.isExportDeclaration(st) || st.moduleSpecifier === undefined || !ts.isStringLiteralLike(st.moduleSpecifier) || !st.moduleSpecifier.text.startsWith(".")) return false;
    const named = st.exportClause === undefined || (ts.isNamedExports(st.exportClause) && st.exportClause.elements.some((e) => (e.propertyName ?? e.name).text === symbol));
    return named && reexports(sourceOf(path.posix.join(path.posix.dirname(file), st.moduleSpecifier.text).replace(/\.js$/, "")), seen);
  });
}

/** The files that use the symbol, by the TypeScript compiler's parse of every file that names the package. */
function oracle() {
  const named = git("grep", "-l", "-z", "-F", pkg.name, "--", "*.ts", "*.tsx", "*.mts", "*.cts", "*.js", "*.jsx", "*.mjs", "*.cjs")
    .stdout.split("\0")
    .filter((f) => f !== "" && !f.startsWith(`${pkg.dir}/`));
  const users = new Set();
  // The package itself, or a subpath of it (`@scope/utils/client`) whose module exports the helper's symbol from the
  // helper's file, through `export *` and `export { ... } from` (as the package's own sources say: `src/SUB` before
  // the built stub `SUB.js` at the package's root).
  const subpaths = new Map();
  const isPkg = (node) => {
    if (node === undefined || !ts.isStringLiteralLike(node)) return false;
    if (node.text === pkg.name) return true;
    if (!node.text.startsWith(`${pkg.name}/`)) return false;
    const sub = node.text.slice(pkg.name.length + 1);
    if (!subpaths.has(sub)) subpaths.set(sub, reexports(sourceOf(path.posix.join(pkg.dir, "src", sub)) ?? sourceOf(path.posix.join(pkg.dir, sub)), new Set()));
    return subpaths.get(sub);
  };
  const nameOf = (spec) => (spec.propertyName ?? spec.name).text;
  for (const f of named) {
    const text = fs.readFileSync(path.join(root, f), "utf8");
    const kind = /\.(tsx|jsx)$/.test(f) ? ts.ScriptKind.TSX : /\.[mc]?js$/.test(f) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
    const source = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true, kind);
    let uses = false;
    const visit = (node) => {
      if (uses) return;
      if (ts.isImportDeclaration(node) && isPkg(node.moduleSpecifier)) {
        const bindings = node.importClause?.namedBindings;
        if (bindings !== undefined && (ts.isNamespaceImport(bindings) || bindings.elements.some((e) => nameOf(e) === symbol))) uses = true;
      } else if (ts.isExportDeclaration(node) && isPkg(node.moduleSpecifier)) {
        if (node.exportClause === undefined || ts.isNamespaceExport(node.exportClause) || node.exportClause.elements.some((e) => nameOf(e) === symbol)) uses = true;
      } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && isPkg(node.moduleReference.expression)) {
        uses = true;
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && isPkg(node.argument.literal)) {
        const first = node.qualifier === undefined ? undefined : ts.isIdentifier(node.qualifier) ? node.qualifier.text : node.qualifier.left.getText(source);
        if (first === undefined || first === symbol) uses = true;
      } else if (ts.isCallExpression(node) && node.arguments.length === 1 && isPkg(node.arguments[0])) {
        const callee = node.expression;
        const required = ts.isIdentifier(callee) && callee.text === "require";
        if (required || callee.kind === ts.SyntaxKind.ImportKeyword) {
          const parent = node.parent;
          if (required && ts.isVariableDeclaration(parent) && ts.isObjectBindingPattern(parent.name)) {
            if (parent.name.elements.some((e) => (e.propertyName ?? e.name).getText(source) === symbol)) uses = true;
          } else if (required && ts.isPropertyAccessExpression(parent)) {
            if (parent.name.text === symbol) uses = true;
          } else uses = true;
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    if (uses) users.add(f);
  }
  return users;
}

const time = (args, runEnv) => {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: root, env: runEnv, encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${args.join(" ")}: ${r.stderr}`);
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, stdout: r.stdout };
};
const gitStatus = () => {
  const t = process.hrtime.bigint();
  git("status", "--porcelain=v2", "-uall");
  return Number(process.hrtime.bigint() - t) / 1e6;
};

const file = path.join(root, rel);
const original = fs.readFileSync(file, "utf8");
const head = git("rev-parse", "--short=12", "HEAD").stdout.trim();
const files = git("ls-files")
  .stdout.split("\n")
  .filter((l) => l !== "").length;
const off = { ...env, COMITY_DAEMON: "off" };
try {
  fs.writeFileSync(file, inserted(original));
  const rows = { cold: [], git: [], node: [], warm: [] };
  time([bin, "analyze", "--json"], off); // the symbol cache and the OS's file cache filled, as a user's second run
  let doc = null;
  for (let i = 0; i < runs; i++) {
    rows.git.push(gitStatus());
    const r = time([bin, "analyze", "--json"], off);
    rows.cold.push(r.ms);
    doc ??= JSON.parse(r.stdout);
  }
  if (spawnSync(process.execPath, [bin, "daemon", "start"], { env }).status !== 0) throw new Error("comity daemon start failed");
  for (let i = 0; i < 3; i++) time([bin, "analyze", "--json"], env);
  for (let i = 0; i < runs; i++) {
    rows.node.push(time(["-e", "0"], env).ms);
    const warm = time([bin, "analyze", "--json"], env);
    if (JSON.stringify(JSON.parse(warm.stdout).in_repo) !== JSON.stringify(doc.in_repo)) throw new Error("a warm answer lists other users than the cold one");
    rows.warm.push(warm.ms);
  }
  const truth = oracle();
  const impact = doc.in_repo.find((i) => i.package === pkg.name && i.qualified_name === symbol);
  const listed = new Set(impact?.files ?? []);
  const both = [...truth].filter((f) => listed.has(f)).length;
  const recall = truth.size === 0 ? 1 : both / truth.size;
  const precision = listed.size === 0 ? 1 : both / listed.size;
  const reasons = impact?.reasons ?? [];
  const packages = doc.repos.reduce((n, r) => n + r.packages.length, 0);
  const [cold, anchor, warm, node] = [median(rows.cold), median(rows.git), median(rows.warm), median(rows.node)];
  console.log(
    `${machine()}; ${runs} runs each, medians; \`${path.basename(root)}\` at ${head}: ${files} files, ${packages} workspace packages${doc.repos.some((r) => r.packages_truncated) ? "+" : ""}`,
  );
  console.log(`the change: \`${values.insert}\` inserted before the parameters of \`${symbol}\` in \`${rel}\` (package \`${pkg.name}\`)\n`);
  console.log(
    table(
      ["what", "figure", "anchor", "target"],
      [
        [
          "files that use it, TypeScript's parse (oracle) / listed by analyze / both",
          `${truth.size} / ${listed.size} / ${both}`,
          "",
          `recall ≥ 0.99, no false user: ${recall >= 0.99 && precision === 1 ? "met" : "NOT met"} (recall ${recall.toFixed(3)}, precision ${precision.toFixed(3)})`,
        ],
        ["the reasons analyze gives", reasons.join(", ") || "(none)", "", `an inserted parameter named as such: ${reasons[0] === "PARAMETER_INSERTED" ? "met" : "NOT met"}`],
        ["packages those files belong to", String(impact?.consumer_packages.length ?? 0), "", ""],
        ["comity analyze, cold (no daemon)", cold.toFixed(0), `${(cold / anchor).toFixed(2)} × git status (${anchor.toFixed(0)} ms)`, `≤ 5 × git status: ${cold <= 5 * anchor ? "met" : "NOT met"}`],
        ["comity analyze through the warm daemon", warm.toFixed(0), `+${(warm - node).toFixed(0)} ms over node -e 0 (${node.toFixed(0)} ms)`, `≤ 100 ms: ${warm <= 100 ? "met" : "NOT met"}`],
      ],
    ),
  );
  const missed = [...truth].filter((f) => !listed.has(f)).sort();
  const extra = [...listed].filter((f) => !truth.has(f)).sort();
  if (missed.length > 0) console.log(`\nmissed: ${missed.slice(0, 10).join(", ")}${missed.length > 10 ? ", ..." : ""}`);
  if (extra.length > 0) console.log(`\nlisted, not in the oracle: ${extra.slice(0, 10).join(", ")}${extra.length > 10 ? ", ..." : ""}`);
} finally {
  fs.writeFileSync(file, original);
  spawnSync(process.execPath, [bin, "daemon", "stop"], { env });
  fs.rmSync(env.COMITY_CONFIG_DIR, { recursive: true, force: true });
}
