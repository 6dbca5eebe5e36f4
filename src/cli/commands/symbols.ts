import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { configDir } from "../../config/config-dir.js";
import { resolvePath } from "../../fs/clean-path.js";
import { statMany } from "../../fs/stat-many.js";
import type { SymbolChange } from "../../symbols/compare-symbols.js";
import { shownSymbol } from "../../symbols/printed-symbols.js";
import type { FileSymbols, SymbolRecord } from "../../symbols/types.js";
import { chunkedWriter } from "../chunked-writer.js";
import type { CliIo } from "../io.js";
import { CONFIG_LAYOUT } from "../../config/config-layout.js";
import { tuneForPools } from "../tune-for-pools.js";

export const SYMBOLS_USAGE = `usage: comity symbols FILE... [--json] [--no-cache] [--jobs N]
       comity symbols --diff BEFORE AFTER [--json]

Prints each file's symbols (TypeScript, TSX, JavaScript, Python, Go, Rust,
Java, and service contracts: GraphQL SDL, OpenAPI, Protocol Buffers), or with
--diff, what changed from BEFORE to AFTER: added, removed, renamed, signature
or body changed, each with its compatibility for callers, and the new
references AFTER makes. Many files are read on a worker thread per core (on 2
cores, only for 1 MB or more to parse; --jobs N to choose; 1 reads them in
this process).
`;

export async function symbolsCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      json: { type: "boolean", default: false },
      diff: { type: "boolean", default: false },
      "no-cache": { type: "boolean", default: false },
      jobs: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    io.stdout.write(SYMBOLS_USAGE);
    return 0;
  }
  if (positionals.length === 0 || (values.diff && positionals.length !== 2)) {
    io.stderr.write(SYMBOLS_USAGE);
    return 2;
  }
  // (each file's stat, taken before anything reads it, is what the folder lines and the file index compare: see
  // ExtractManyOptions.fileIndex)
  const absolute = positionals.map((p) => resolvePath(io.cwd, p));
  const stats = statMany(absolute);
  const files = positionals.map((p, i) => ({ given: p, abs: absolute[i] as string, stat: stats[i] }));
  const missing = files.filter((f) => f.stat === undefined || !f.stat.isFile);
  if (missing.length > 0) {
    io.stderr.write(missing.map((f) => `comity: ${f.given}: no such file\n`).join(""));
    return 2;
  }
  const cached = !values["no-cache"];
  // Grammars load only for files the cache cannot answer: start-up is most of a one-file run.
  const read = (f: { given: string; abs: string }, as = f.given): { path: string; bytes: Buffer } => ({ path: as, bytes: fs.readFileSync(f.abs) });

  // Service contracts are read here, in this thread (a parser of their own, no grammar); code goes to the pool.
  const { mayBeContract } = await import("../../contracts/contract-files.js");
  const contracts = files.some((f) => mayBeContract(f.given)) ? await contractsAmong(files, values.diff) : null;

  if (values.diff && contracts !== null && contracts.diff !== null) {
    const { changes, kind, diagnostics } = contracts.diff;
    if (values.json) io.stdout.write(`${JSON.stringify({ schema: "comity.symbols-diff/1", path: files[1]?.given, language: kind, changes, new_references: [], diagnostics }, null, 2)}\n`);
    else io.stdout.write(formatChanges(changes));
    return 0;
  }

  if (values.diff) {
    const [b, a] = files as [(typeof files)[number], (typeof files)[number]];
    // (loaded for --diff only: each module a process loads costs it about a millisecond)
    const [{ extractWithCache }, { createSymbolCache }] = await Promise.all([import("../../symbols/extract-with-cache.js"), import("../../symbols/symbol-cache.js")]);
    const cache = cached ? createSymbolCache(cacheDirOf(io)) : null;
    // Both sides are read as the AFTER file's language.
    const [before, after] = (await extractWithCache([read(b, a.given), read(a)], { cache })) as [FileSymbols, FileSymbols];
    // The comparison code loads only for --diff.
    const [{ compareSymbols, compatLanguageOf }, { newReferences }] = await Promise.all([import("../../symbols/compare-symbols.js"), import("../../symbols/new-references.js")]);
    const changes = compareSymbols(before.symbols, after.symbols, compatLanguageOf(after.language));
    const refs = newReferences(before.references, after.references);
    if (values.json) {
      io.stdout.write(
        `${JSON.stringify({ schema: "comity.symbols-diff/1", path: a.given, language: after.language, changes, new_references: refs, diagnostics: [...before.diagnostics, ...after.diagnostics] }, null, 2)}\n`,
      );
    } else {
      io.stdout.write(formatChanges(changes));
      if (refs.length > 0) io.stdout.write(`\nnew references:\n${refs.map((r) => `  ${r.kind} ${r.name}${r.module === null ? "" : ` from ${r.module}`}\n`).join("")}`);
    }
    return 0;
  }

  const jobs = values.jobs === undefined ? os.availableParallelism() : Number(values.jobs);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 256) {
    io.stderr.write(`comity symbols: --jobs: '${values.jobs}' is not a number of threads\n${SYMBOLS_USAGE}`);
    return 2;
  }
  // Many files: a pool of worker threads, one per core (the same as comity analyze; on 2 cores, only for enough bytes
  // to parse, unless --jobs says how many), or with --jobs 1 this thread with the pool's backend; a few: this
  // process, with the backend that starts quickest.
  const { extractMany, printedEach, defaultMinBytesPerWorker, DEFAULT_MIN_FILES_FOR_POOL } = await import("../../symbols/extract-pool.js");
  if (contracts !== null && contracts.files.size > 0) {
    // With contracts among them: code read as below, then every file printed in the order given.
    const code = files.filter((f) => !contracts.files.has(f.given));
    const codeResults =
      code.length === 0
        ? []
        : await extractMany(
            code.map((f) => ({ path: f.given, abs: f.abs })),
            { workers: jobs, cacheDir: cached ? cacheDirOf(io) : null, beforePool: tuneForPools },
          );
    const byPath = new Map(codeResults.map((r) => [r.path, r]));
    const all = files.map((f) => contracts.files.get(f.given) ?? (byPath.get(f.given) as FileSymbols));
    if (values.json) {
      const shown = all.map((r) => ({ path: r.path, language: r.language, symbols: r.symbols.map(shownSymbol), references: r.references, diagnostics: r.diagnostics }));
      io.stdout.write(`${JSON.stringify({ schema: "comity.symbols/1", files: shown }, null, 2)}\n`);
    } else io.stdout.write(all.map(formatFile).join("\n"));
    return 0;
  }
  const jobList = files.map((f) => ({ path: f.given, abs: f.abs, ...(f.stat === undefined ? {} : { stamp: f.stat }) }));
  // The file index, for many files: a run over files that did not change since the last reads none of them. For a
  // few, writing a folder's index file costs more than reading them would save.
  const fileIndex = files.length >= DEFAULT_MIN_FILES_FOR_POOL;
  const poolOptions = {
    workers: jobs,
    cacheDir: cached ? cacheDirOf(io) : null,
    fileIndex,
    beforePool: tuneForPools,
    ...(values.jobs === undefined ? { minBytesPerWorker: defaultMinBytesPerWorker(jobs) } : {}),
  };
  if (values.json && io.stdout.isTTY !== true) {
    // For a program: one line per file (a third of the bytes of the indented form), copied from the cache where it
    // can be, and written as it comes (in order): nothing holds the whole output.
    const out = chunkedWriter((chunk, done) => io.stdout.write(chunk, done));
    const separator = Buffer.from(",\n");
    out.push(Buffer.from('{"schema":"comity.symbols/1","files":[\n'));
    await printedEach(
      jobList,
      poolOptions,
      (line, i) => {
        if (i > 0) out.push(separator);
        for (const piece of line) out.push(piece);
      },
      out.room,
    );
    out.push(Buffer.from("\n]}\n"));
    out.end();
    return 0;
  }
  const results = await extractMany(jobList, poolOptions);
  if (values.json) {
    // For a person at a terminal: indented.
    const shown = results.map((r) => ({ path: r.path, language: r.language, symbols: r.symbols.map(shownSymbol), references: r.references, diagnostics: r.diagnostics }));
    io.stdout.write(`${JSON.stringify({ schema: "comity.symbols/1", files: shown }, null, 2)}\n`);
  } else {
    io.stdout.write(results.map(formatFile).join("\n"));
  }
  return 0;
}

/**
 * The contracts among the files, read: each one's symbols as a file's (by path as given), and for --diff of two
 * contracts their comparison (null when AFTER is not one: then they are compared as code).
 */
async function contractsAmong(
  files: ReadonlyArray<{ given: string; abs: string }>,
  diff: boolean,
): Promise<{ files: Map<string, FileSymbols>; diff: { kind: string; changes: SymbolChange[]; diagnostics: unknown[] } | null }> {
  const [{ analyzeContract }, { loadContentHasher }] = await Promise.all([import("../../contracts/contract-files.js"), import("../../snapshot/content-hasher.js")]);
  const hasher = await loadContentHasher();
  const hash = (s: string) => hasher.xxh64(s);
  if (diff) {
    const [b, a] = files as [{ given: string; abs: string }, { given: string; abs: string }];
    // Both sides are read as the AFTER file's kind, under its name.
    const c = analyzeContract(a.given, fs.readFileSync(b.abs), fs.readFileSync(a.abs), hash);
    return { files: new Map(), diff: c === null ? null : { kind: c.kind, changes: [...c.changes], diagnostics: [...c.diagnostics] } };
  }
  const out = new Map<string, FileSymbols>();
  for (const f of files) {
    const bytes = fs.readFileSync(f.abs);
    const c = analyzeContract(f.given, null, bytes, hash);
    if (c !== null) out.set(f.given, { path: f.given, language: c.kind, symbols: c.symbols, references: [], diagnostics: c.diagnostics });
  }
  return { files: out, diff: null };
}

function cacheDirOf(io: CliIo): string {
  return path.join(configDir(io.env, io.env["HOME"] ?? os.homedir()), CONFIG_LAYOUT.symbols);
}

function formatFile(r: FileSymbols): string {
  const rows = r.symbols.map((s: SymbolRecord) => [`${s.range.start_line}`, s.kind, s.exported ? "export" : "", s.qualified_name, s.signature.split("\n").at(-1) ?? ""]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(0, ...rows.map((row) => (row[i] ?? "").length)));
  const lines = rows.map((row) =>
    row
      .map((c, i) => (i < 4 ? c.padEnd(widths[i] ?? 0) : c))
      .join("  ")
      .trimEnd(),
  );
  const notes = r.diagnostics.map((d) => `  ${d.severity} ${d.code}: ${d.message}`);
  return `${r.path} (${r.language ?? "unknown"}, ${r.symbols.length} symbols)\n${[...lines.map((l) => `  ${l}`), ...notes].join("\n")}\n`;
}

function formatChanges(changes: readonly SymbolChange[]): string {
  if (changes.length === 0) return "no symbol changes\n";
  return changes
    .map((c) => {
      const head = `${c.compatibility.padEnd(10)} ${c.change.padEnd(17)} ${c.kind.padEnd(11)} ${c.renamed_from === null ? c.qualified_name : `${c.renamed_from} -> ${c.qualified_name}`}`;
      return [head, ...c.reasons.map((r) => `    ${r.code}${r.conservative ? " (conservative)" : ""}: ${r.message}`)].join("\n");
    })
    .join("\n")
    .concat("\n");
}
