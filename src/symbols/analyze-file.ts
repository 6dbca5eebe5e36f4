import * as nodeFs from "node:fs";
import * as path from "node:path";
import { diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { createObjectReader, readFileAtCommit } from "../git/read-git-object.js";
import { callShape } from "./call-shape.js";
import { compareSymbols, compatLanguageOf, type SymbolChange } from "./compare-symbols.js";
import { languageOf } from "./languages.js";
import { newReferences } from "./new-references.js";
import type { HeadHashes } from "./head-hashes.js";
import { cachedFor, keepable, type SymbolCache } from "./symbol-cache.js";
import { loadContentHasher } from "../snapshot/content-hasher.js";
import { extractAndStore } from "./extract-with-cache.js";
import type { SymbolExtractor } from "./symbol-extractor.js";
import type { ContractCache } from "../contracts/contract-cache.js";
import type { ContractLink } from "../contracts/contract-files.js";
import type { ContractKind, FileSymbols, LanguageId, ReferenceRecord, SymbolRecord } from "./types.js";

/** The `analysis` of one edited file, as `post_edit` sends it (after `stripLocal`). */
export interface FileAnalysis {
  readonly path: string;
  readonly language: LanguageId | ContractKind | null;
  readonly symbols: readonly SymbolRecord[];
  readonly changes: readonly SymbolChange[];
  readonly new_references: readonly ReferenceRecord[];
  /** Every reference of the file as it is now (none for a deleted file). */
  readonly references: readonly ReferenceRecord[];
  readonly diagnostics: readonly Diagnostic[];
  /** The qualified name of the module's default export, when it is a named symbol (see `FileSymbols`). */
  readonly default_export?: string;
  /**
   * A service contract's link to its consumers: the namespace its changes are filed under and, per breaking change,
   * the names a consumer's use gives it (`src/contracts/`). Absent for code.
   */
  readonly contract?: ContractLink;
  /** For each changed symbol, how it was and is called (`callShape`; null where it has no parameters or is not there). */
  readonly shapes: ReadonlyMap<string, { readonly before: string | null; readonly after: string | null }>;
  /**
   * A server's code: what changed in the HTTP routes it declares (`src/contracts/code-routes.ts`), filed under the
   * HTTP API's namespace rather than the file's package. Absent where the file declares none.
   */
  readonly route_changes?: readonly SymbolChange[];
}

/** Reads a file's content at HEAD; null when HEAD has no such file (a new file) or there is no HEAD. */
export type ReadHeadFile = (repoRelativePath: string) => Promise<Buffer | null>;

/**
 * Symbols at HEAD versus in the working tree for one file: what changed,
 * whether it breaks callers, and what the file newly references. A new file
 * has no "before"; a deleted file has no "after". Results are cached by
 * content hash when a cache is given.
 */
export async function analyzeFile(
  root: string,
  repoPath: string,
  options: {
    /** An extractor, or a way to load one: then tree-sitter is loaded only when the cache cannot answer. */
    extractor: SymbolExtractor | (() => Promise<SymbolExtractor>);
    readHead: ReadHeadFile;
    cache?: SymbolCache | null;
    /** HEAD's content hash per path: with the cache, a repeated edit does not read HEAD at all. */
    headHashes?: HeadHashes | null;
    readWorking?: (abs: string) => Buffer | null;
    /** Where a service contract's version at HEAD is kept once read (`src/contracts/contract-cache.ts`). */
    contractCache?: ContractCache | null;
  },
): Promise<FileAnalysis> {
  const language = languageOf(repoPath)?.id ?? null;
  const diagnostics: Diagnostic[] = [];
  const readWorking = options.readWorking ?? ((abs: string) => readOrNull(abs));
  const afterBytes = readWorking(path.join(root, repoPath));
  const cache = options.cache ?? null;
  const hasher = await loadContentHasher();
  if (language === null) {
    const contract = await contractFile(root, repoPath, afterBytes, options.readHead, (s) => hasher.xxh64(s), options.contractCache ?? null);
    if (contract !== null) return contract;
  }
  let extractor = typeof options.extractor === "function" ? null : options.extractor;
  const fromCache = (hash: string): FileSymbols | null => cachedFor(repoPath, cache?.get(hash, language ?? "none") ?? null);
  const extract = async (bytes: Buffer | null): Promise<FileSymbols | null> => {
    if (bytes === null) return null;
    const hash = hasher.xxh64(bytes);
    const hit = fromCache(hash);
    if (hit !== null) return hit;
    extractor ??= await (options.extractor as () => Promise<SymbolExtractor>)();
    return extractAndStore(repoPath, bytes, hash, extractor, cache);
  };
  // HEAD's version: known by its content hash (nothing read from git), else read and remembered.
  const extractHead = async (): Promise<FileSymbols | null> => {
    const heads = options.headHashes ?? null;
    const known = heads?.get(repoPath);
    if (known === null) return null;
    const hit = known === undefined ? null : fromCache(known);
    if (hit !== null) return hit;
    let bytes: Buffer | null;
    try {
      bytes = await options.readHead(repoPath);
    } catch (error) {
      diagnostics.push(diagnostic("head_unreadable", "warning", repoPath, `cannot read the file at HEAD: ${error instanceof Error ? error.message : String(error)}`));
      return null;
    }
    heads?.set(repoPath, bytes === null ? null : hasher.xxh64(bytes));
    return extract(bytes);
  };
  const before = await extractHead();
  const after = await extract(afterBytes);
  if (after !== null) diagnostics.push(...after.diagnostics);
  // A version whose parse was stopped at its limits has no symbols: nothing is compared (not every symbol removed or
  // added), as for a file that does not parse.
  if (before !== null && !keepable(before)) diagnostics.push(...before.diagnostics);
  if ((before !== null && !keepable(before)) || (after !== null && !keepable(after))) {
    return { path: repoPath, language, symbols: [], changes: [], new_references: [], references: after?.references ?? [], diagnostics, shapes: new Map() };
  }
  const compatLanguage = compatLanguageOf(language);
  const changes = compareSymbols(before?.symbols ?? [], after?.symbols ?? [], compatLanguage);
  const shapeIn = (symbols: readonly SymbolRecord[] | undefined, name: string): string | null => {
    const s = symbols?.find((x) => x.qualified_name === name);
    return s === undefined ? null : callShape(s);
  };
  const shapes = new Map(changes.map((ch) => [ch.qualified_name, { before: shapeIn(before?.symbols, ch.renamed_from ?? ch.qualified_name), after: shapeIn(after?.symbols, ch.qualified_name) }]));
  const routeChanges = await routeChangesOf(root, repoPath, afterBytes, options.readHead);
  return {
    path: repoPath,
    language,
    symbols: after?.symbols ?? [],
    changes,
    new_references: newReferences(before?.references ?? [], after?.references ?? []),
    references: after?.references ?? [],
    diagnostics,
    ...(after?.default_export === undefined ? {} : { default_export: after.default_export }),
    shapes,
    ...(routeChanges.length === 0 ? {} : { route_changes: routeChanges }),
  };
}

/**
 * The changes to the HTTP routes a code file declares, HEAD's version against the working one. Read only where the
 * file, as it is now, imports a server framework (`mayDeclareRoutes`), or is deleted: an edit of any other file
 * costs a regular expression.
 */
async function routeChangesOf(root: string, repoPath: string, afterBytes: Buffer | null, readHead: ReadHeadFile): Promise<SymbolChange[]> {
  const { compareRoutes, mayDeclareRoutes, routesIn } = await import("../contracts/code-routes.js");
  const afterText = afterBytes?.toString("utf8") ?? null;
  if (afterText !== null && !mayDeclareRoutes(repoPath, afterText)) return [];
  let beforeText: string | null;
  try {
    beforeText = (await readHead(repoPath))?.toString("utf8") ?? null;
  } catch {
    // (HEAD unreadable: the symbols' analysis says so)
    return [];
  }
  // A router another file mounts under a prefix (`app.use("/v1/orders", orders)`) is served there, as read now.
  const { externalMountPrefixes } = await import("../contracts/route-mounts.js");
  const prefixes = CODE_FILE.test(repoPath) ? externalMountPrefixes(root, repoPath) : [];
  return compareRoutes(beforeText === null ? [] : routesIn(repoPath, beforeText, { prefixes }), afterText === null ? [] : routesIn(repoPath, afterText, { prefixes }));
}

const CODE_FILE = /\.(tsx?|mts|cts|jsx?|mjs|cjs)$/;

/** A service contract's analysis (`src/contracts/`), or null for a file that is not one. */
async function contractFile(
  root: string,
  repoPath: string,
  afterBytes: Buffer | null,
  readHead: ReadHeadFile,
  hash: (s: string) => string,
  cache: ContractCache | null,
  /** Only where the document's `$ref`s (as it was or is) reach this file: else null. */
  reaching: string | null = null,
): Promise<FileAnalysis | null> {
  const { contractKindOf, mayBeContract } = await import("../contracts/contract-kind.js");
  if (!mayBeContract(repoPath)) return null;
  // A YAML or JSON file is one by what it holds: the working version says, else (deleted) HEAD's.
  if (afterBytes !== null && contractKindOf(repoPath, afterBytes.subarray(0, 4096).toString("utf8")) === null) return null;
  const { analyzeContract } = await import("../contracts/contract-files.js");
  let before: Buffer | null = null;
  const diagnostics: Diagnostic[] = [];
  try {
    before = await readHead(repoPath);
  } catch (error) {
    diagnostics.push(diagnostic("head_unreadable", "warning", repoPath, `cannot read the file at HEAD: ${error instanceof Error ? error.message : String(error)}`));
  }
  const { beforeFiles, afterFiles } = await refFilesOf(root, repoPath, before, afterBytes, readHead);
  if (reaching !== null && beforeFiles?.has(reaching) !== true && afterFiles?.has(reaching) !== true) return null;
  const c = analyzeContract(repoPath, before, afterBytes, hash, { beforeCache: cache, beforeFiles, afterFiles });
  if (c === null) return null;
  const shape = (symbols: readonly SymbolRecord[], name: string): string | null => {
    const s = symbols.find((x) => x.qualified_name === name);
    return s === undefined ? null : callShape(s);
  };
  const shapes = new Map(c.changes.map((ch) => [ch.qualified_name, { before: shape(c.before_symbols, ch.qualified_name), after: shape(c.symbols, ch.qualified_name) }]));
  return { path: repoPath, language: c.kind, symbols: c.symbols, changes: c.changes, new_references: [], references: [], diagnostics: [...diagnostics, ...c.diagnostics], shapes, contract: c.link };
}

/**
 * The other files an OpenAPI document's `$ref`s reach, as at HEAD (with the document as it was) and as in the working
 * tree; null where its text names none (the parser is not loaded for a document that names none).
 */
async function refFilesOf(
  root: string,
  docPath: string,
  before: Buffer | null,
  after: Buffer | null,
  readHead: ReadHeadFile,
): Promise<{ beforeFiles: Map<string, string | null> | null; afterFiles: Map<string, string | null> | null }> {
  if (!/\.(ya?ml|json)$/i.test(docPath)) return { beforeFiles: null, afterFiles: null };
  const { EXTERNAL_REF } = await import("../contracts/ref-documents.js");
  const [bText, aText] = [before?.toString("utf8") ?? null, after?.toString("utf8") ?? null];
  if (!(bText !== null && EXTERNAL_REF.test(bText)) && !(aText !== null && EXTERNAL_REF.test(aText))) return { beforeFiles: null, afterFiles: null };
  const { openapiRefFiles } = await import("../contracts/openapi-contract.js");
  const atHead = async (p: string): Promise<string | null> => (await readHead(p))?.toString("utf8") ?? null;
  const working = async (p: string): Promise<string | null> => readOrNull(path.join(root, p))?.toString("utf8") ?? null;
  return {
    beforeFiles: bText === null ? null : await openapiRefFiles(docPath, bText, atHead),
    afterFiles: aText === null ? null : await openapiRefFiles(docPath, aText, working),
  };
}

/** A contract file compared with its version at a base (`readBase`; HEAD's for the hooks), with the files its `$ref`s reach; null for a file that is not one. */
export async function analyzeContractFile(root: string, repoPath: string, readBase: ReadHeadFile): Promise<FileAnalysis | null> {
  const hasher = await loadContentHasher();
  return contractFile(root, repoPath, readOrNull(path.join(root, repoPath)), readBase, (s) => hasher.xxh64(s), null);
}

/**
 * A schema or path file of the repo's OpenAPI documents (one their `$ref`s reach, not a document itself): what its
 * edit changed in each document that reaches it, filed under the file edited (no symbols of its own: the
 * operations are the documents'); null where no document reaches it.
 */
export async function analyzeFragment(root: string, repoPath: string, options: { readHead: ReadHeadFile }): Promise<FileAnalysis | null> {
  const { candidateDocuments } = await import("../contracts/ref-documents.js");
  const docs = candidateDocuments(root, repoPath);
  if (docs.length === 0) return null;
  const hasher = await loadContentHasher();
  const found: FileAnalysis[] = [];
  for (const doc of docs) {
    const a = await contractFile(root, doc, readOrNull(path.join(root, doc)), options.readHead, (s) => hasher.xxh64(s), null, repoPath);
    if (a !== null) found.push(a);
  }
  const first = found[0];
  if (first === undefined || first.contract === undefined) return null;
  const changes = new Map<string, SymbolChange>();
  const shapes = new Map<string, { before: string | null; after: string | null }>();
  const publicNames = new Map<string, readonly string[]>();
  for (const a of found) {
    for (const ch of a.changes) if (!changes.has(ch.qualified_name)) changes.set(ch.qualified_name, ch);
    for (const [k, v] of a.shapes) if (!shapes.has(k)) shapes.set(k, v);
    for (const [k, v] of a.contract?.publicNames ?? []) if (!publicNames.has(k)) publicNames.set(k, v);
  }
  return {
    path: repoPath,
    language: first.language,
    symbols: [],
    changes: [...changes.values()].sort((x, y) => (x.qualified_name < y.qualified_name ? -1 : x.qualified_name > y.qualified_name ? 1 : 0)),
    new_references: [],
    references: [],
    diagnostics: found.flatMap((a) => a.diagnostics.map((d) => ({ ...d, path: repoPath }))),
    shapes,
    contract: { package: first.contract.package, publicNames },
  };
}

/**
 * Files read at a commit, by common dir, commit and path: a commit's files never change, and an edit's two hooks (and a
 * turn's edits of one file) read the same one. Bounded by bytes; the oldest read goes first.
 */
const readAtCommit = new Map<string, Buffer | null>();
let readAtCommitBytes = 0;
const MAX_READ_AT_COMMIT_BYTES = 8 * 1024 * 1024;

function keepReadAtCommit(key: string, blob: Buffer | null): void {
  const size = blob?.length ?? 0;
  if (size > MAX_READ_AT_COMMIT_BYTES / 8) return;
  while (readAtCommitBytes + size > MAX_READ_AT_COMMIT_BYTES && readAtCommit.size > 0) {
    const [oldest, was] = readAtCommit.entries().next().value as [string, Buffer | null];
    readAtCommit.delete(oldest);
    readAtCommitBytes -= was?.length ?? 0;
  }
  readAtCommit.set(key, blob);
  readAtCommitBytes += size;
}

/** HEAD's blob of a path, from the common dir (where a worktree's objects live): our reader, else isomorphic-git. */
export function headReader(commonDir: string, headSha: string | null): ReadHeadFile {
  let reader: ReturnType<typeof createObjectReader> | null = null;
  return async (repoPath) => {
    if (headSha === null) return null;
    const key = `${commonDir}\0${headSha}\0${repoPath}`;
    if (readAtCommit.has(key)) return readAtCommit.get(key) ?? null;
    const blob = await readHeadUncached(repoPath);
    keepReadAtCommit(key, blob);
    return blob;
  };

  async function readHeadUncached(repoPath: string): Promise<Buffer | null> {
    if (headSha === null) return null;
    // Our own object reader first: it needs only node's zlib, where isomorphic-git costs ~50 ms to load.
    let ours: unknown;
    try {
      reader ??= createObjectReader(path.join(commonDir, "objects"));
      return readFileAtCommit(reader, headSha, repoPath);
    } catch (error) {
      ours = error;
    }
    // A store it does not read (a v1 pack index, say): isomorphic-git may; if not, ours is the clearer message.
    const git = await import("isomorphic-git");
    try {
      const { blob } = await git.readBlob({ fs: nodeFs, gitdir: commonDir, oid: headSha, filepath: repoPath });
      return Buffer.from(blob);
    } catch (error) {
      if (error instanceof Error && (error.name === "NotFoundError" || (error as { code?: string }).code === "NotFoundError")) return null;
      throw ours;
    }
  }
}

function readOrNull(abs: string): Buffer | null {
  try {
    return nodeFs.readFileSync(abs);
  } catch {
    return null;
  }
}

/** What leaves the machine: a symbol without its signature text and detail (names, kinds, ranges, hashes only). */
export function stripLocal(s: SymbolRecord): Omit<SymbolRecord, "signature" | "detail"> {
  const { signature: _s, detail: _d, ...rest } = s;
  return rest;
}
