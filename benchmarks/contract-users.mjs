#!/usr/bin/env node
// `comity analyze` on a real GraphQL client (its schema and its gql documents in one repo): a field removed from
// the schema, do the files analyze lists as its users equal the ones graphql-js itself resolves? The oracle parses
// every gql-tagged document of the repo and walks it with graphql's TypeInfo against the schema at HEAD (fragments,
// aliases and nesting resolved by the reference implementation); each sampled field is removed in turn (the schema
// printed back by graphql), analyze runs cold, and the file is restored. Fields are sampled from those 2 to 15 files
// use, evenly, the same every run. A second column says how many of those users the hooks' names alone reach (a
// consumer in another repo has no schema at hand: the names are the field's coordinate and its shortest root paths).
// Usage: node benchmarks/contract-users.mjs --repo DIR --schema REL [--fields 12]
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { buildSchema, parse, print, TypeInfo, visit, visitWithTypeInfo } from "graphql";
import { gitEnv, machine, median, table } from "./lib.mjs";

const { analyzeContract } = await import(new URL("../dist/contracts/contract-files.js", import.meta.url).href);
const { contractUses } = await import(new URL("../dist/contracts/contract-uses.js", import.meta.url).href);
const { loadContentHasher } = await import(new URL("../dist/snapshot/content-hasher.js", import.meta.url).href);
const hasher = await loadContentHasher();

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, "..", "bin", "comity.cjs");
const { values } = parseArgs({ options: { repo: { type: "string" }, schema: { type: "string" }, fields: { type: "string", default: "12" } } });
if (values.repo === undefined || !fs.existsSync(path.join(values.repo, ".git")) || values.schema === undefined) {
  console.log("(no repo given or found: pass --repo DIR of a clone and --schema REL; see benchmarks/README.md for the one measured)");
  process.exit(0);
}
const root = path.resolve(values.repo);
const schemaFile = fs.realpathSync(path.join(root, values.schema));
const env = { ...gitEnv(), COMITY_CONFIG_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "comity-bench-contracts-")), COMITY_DAEMON: "off" };
const git = (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8", maxBuffer: 1 << 28 });
if (git("status", "--porcelain", "--", schemaFile) !== "") throw new Error(`${schemaFile} has changes of its own: start from a clean clone`);

const original = fs.readFileSync(schemaFile, "utf8");
const schema = buildSchema(original, { assumeValid: true, assumeValidSDL: true });
/** Every field coordinate the repo's gql documents select, with the files that select it (graphql-js's TypeInfo). */
const byCoordinate = new Map();
const documents = git("grep", "-l", "-E", "(gql|graphql)`", "--", "*.ts", "*.tsx", "*.js", "*.jsx").split("\n").filter(Boolean);
for (const f of documents) {
  const text = fs.readFileSync(path.join(root, f), "utf8");
  for (const m of text.matchAll(/\b(?:gql|graphql)\s*(?:\(\s*)?`([^`]*)`/g)) {
    let doc;
    try {
      doc = parse((m[1] ?? "").replace(/\$\{[^}]*\}/g, " "));
    } catch {
      continue;
    }
    const info = new TypeInfo(schema);
    visit(
      doc,
      visitWithTypeInfo(info, {
        Field(node) {
          const parent = info.getParentType();
          if (parent === null || node.name.value.startsWith("__")) return;
          const k = `${parent.name}.${node.name.value}`;
          if (!byCoordinate.has(k)) byCoordinate.set(k, new Set());
          byCoordinate.get(k).add(f);
        },
      }),
    );
  }
}
const candidates = [...byCoordinate]
  .filter(([k, files]) => files.size >= 2 && files.size <= 15 && !/(Connection|Edge|Error)\./.test(k) && !k.endsWith(".id") && !k.startsWith("Query.") && !k.startsWith("Mutation."))
  .map(([k]) => k)
  .sort();
const want = Math.min(Number(values.fields), candidates.length);
const sample = Array.from({ length: want }, (_, i) => candidates[Math.floor((i * candidates.length) / want)]);

function without(coordinate) {
  const [type, field] = coordinate.split(".");
  const edited = visit(parse(original), {
    ObjectTypeDefinition: (n) => (n.name.value === type ? { ...n, fields: n.fields.filter((f) => f.name.value !== field) } : undefined),
    InterfaceTypeDefinition: (n) => (n.name.value === type ? { ...n, fields: n.fields.filter((f) => f.name.value !== field) } : undefined),
  });
  return `${print(edited)}\n`;
}

const rows = [];
const times = [];
let [truthTotal, listedTotal, bothTotal, liveTotal] = [0, 0, 0, 0];
try {
  for (const coordinate of sample) {
    fs.writeFileSync(schemaFile, without(coordinate));
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [bin, "analyze", "--json", "."], { cwd: root, env, encoding: "utf8", maxBuffer: 1 << 28 });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (r.status !== 0) throw new Error(`analyze: ${r.stderr}`);
    const doc = JSON.parse(r.stdout);
    const listed = new Set(doc.contract_users.filter((u) => u.qualified_name === coordinate).flatMap((u) => u.files));
    const truth = byCoordinate.get(coordinate) ?? new Set();
    const both = [...truth].filter((f) => listed.has(f)).length;
    [truthTotal, listedTotal, bothTotal] = [truthTotal + truth.size, listedTotal + listed.size, bothTotal + both];
    // What the hooks' names alone reach: the change's public names against each user's uses, as a hook reads them.
    const link = analyzeContract(values.schema, Buffer.from(original), Buffer.from(without(coordinate)), (s) => hasher.xxh64(s))?.link;
    const names = new Set(link?.publicNames.get(coordinate) ?? []);
    const live = [...truth].filter((f) => contractUses(f, fs.readFileSync(path.join(root, f), "utf8"), 32 << 20).some((u) => names.has(u.name))).length;
    liveTotal += live;
    const missed = [...truth].filter((f) => !listed.has(f));
    const extra = [...listed].filter((f) => !truth.has(f));
    rows.push([coordinate, truth.size, listed.size, both, live, [...missed.map((f) => `missed ${f}`), ...extra.map((f) => `extra ${f}`)].join("; ") || "exact"]);
    fs.writeFileSync(schemaFile, original);
  }
} finally {
  fs.writeFileSync(schemaFile, original);
  fs.rmSync(env.COMITY_CONFIG_DIR, { recursive: true, force: true });
}
const recall = truthTotal === 0 ? 1 : bothTotal / truthTotal;
const precision = listedTotal === 0 ? 1 : bothTotal / listedTotal;
console.log(
  `${machine()}; \`${path.basename(root)}\` at ${git("rev-parse", "--short=12", "HEAD").trim()}: ${documents.length} files with gql documents, a ${original.split("\n").length}-line schema; ${want} of ${candidates.length} fields sampled\n`,
);
console.log(table(["field removed", "users (graphql-js TypeInfo)", "listed by analyze", "both", "reached by the hooks' names", ""], rows));
console.log(
  `\n${table(
    ["what", "figure", "target"],
    [
      ["users found, over every sampled field", `recall ${recall.toFixed(3)}, precision ${precision.toFixed(3)}`, `every user, no false one: ${recall === 1 && precision === 1 ? "met" : "NOT met"}`],
      ["users the hooks' names alone reach (another repo, no schema at hand)", `${liveTotal} of ${truthTotal} (${(liveTotal / Math.max(1, truthTotal)).toFixed(3)})`, ""],
      ["comity analyze, cold (median ms)", median(times).toFixed(0), ""],
    ],
  )}`,
);
