import type { Diagnostic } from "../errors/diagnostic.js";
import type { SymbolChange } from "../symbols/compare-symbols.js";
import type { SymbolRecord } from "../symbols/types.js";
import { contractKindOf, MAX_CONTRACT_BYTES } from "./contract-kind.js";
import type { ContractKind, HashText } from "./contract-symbol.js";
import { operationCallNames } from "./contract-uses.js";
export { contractKindOf, isContractFile, MAX_CONTRACT_BYTES, mayBeContract } from "./contract-kind.js";
import { compareGraphql, graphqlRootPaths, graphqlSymbols } from "./graphql-contract.js";
import {
  adoptOpenapiDocument,
  compareOpenapi,
  type OpenapiVersion,
  openapiBasePaths,
  openapiDocumentData,
  openapiHasExternalRefs,
  openapiOperationIds,
  openapiSymbols,
  type RefFiles,
} from "./openapi-contract.js";
import type { ContractCache } from "./contract-cache.js";
import { adoptProtobufFacts, compareProtobuf, protobufFactsData, protobufSymbols } from "./protobuf-contract.js";

/** A contract's symbols: every one public, hashed as code symbols are. */
export function contractSymbolsOf(kind: ContractKind, repoPath: string, text: string, hash: HashText, files: RefFiles | null = null): { symbols: SymbolRecord[]; diagnostics: Diagnostic[] } {
  // (what a document's symbols are with other files is not a function of its text alone: read each time)
  if (kind === "openapi" && files !== null && files.size > 0) return openapiSymbols(repoPath, text, hash, files);
  // An edit's version before is the last edit's version after: in a process that stays (the daemon) it is read once.
  // (the hash function by what it makes of a probe: callers pass a new closure each time)
  const key = `${kind}\0${repoPath}\0${hash("comity")}\0${text}`;
  const kept = readSymbols.get(key);
  if (kept !== undefined) return kept;
  const result = contractSymbolsOnce(kind, repoPath, text, hash);
  readSymbols.set(key, result);
  if (readSymbols.size > 4) readSymbols.delete(readSymbols.keys().next().value as string);
  return result;
}

const readSymbols = new Map<string, { symbols: SymbolRecord[]; diagnostics: Diagnostic[] }>();

function contractSymbolsOnce(kind: ContractKind, repoPath: string, text: string, hash: HashText): { symbols: SymbolRecord[]; diagnostics: Diagnostic[] } {
  switch (kind) {
    case "graphql":
      return graphqlSymbols(repoPath, text, hash);
    case "openapi":
      return openapiSymbols(repoPath, text, hash);
    case "protobuf":
      return protobufSymbols(repoPath, text, hash);
  }
}

/** A version's symbols from the cache where it has them (an OpenAPI document's data adopted with them), else read and kept. */
function cachedVersion(
  kind: ContractKind,
  repoPath: string,
  text: string,
  hash: HashText,
  cache: ContractCache | null,
  files: RefFiles | null,
): { symbols: SymbolRecord[]; diagnostics: Diagnostic[] } {
  if (cache === null || (files !== null && files.size > 0)) return contractSymbolsOf(kind, repoPath, text, hash, files);
  const key = hash(text);
  const hit = cache.get(kind, key);
  if (hit !== null && (kind === "graphql" || hit.data !== undefined)) {
    if (kind === "openapi") adoptOpenapiDocument(text, hit.data);
    if (kind === "protobuf") adoptProtobufFacts(text, hit.data);
    return { symbols: [...hit.symbols], diagnostics: hit.diagnostics.map((d) => ({ ...d, path: repoPath })) };
  }
  const read = contractSymbolsOf(kind, repoPath, text, hash);
  // (a GraphQL schema is compared by graphql-js on its text: its symbols are what is kept)
  const data = kind === "openapi" ? openapiDocumentData(text) : kind === "protobuf" ? protobufFactsData(text) : undefined;
  // A document whose `$ref`s name other files (none read here) means more than its text: not kept by its hash.
  if (kind !== "openapi" || !openapiHasExternalRefs(text)) cache.set(kind, key, { ...read, ...(data === undefined ? {} : { data }) });
  return read;
}

/** One contract file before and after (null: not there), compared by its kind's rules (`docs/compatibility.md`). */
export interface ContractAnalysis {
  readonly kind: ContractKind;
  /** Its symbols now (none for a deleted file), and before (none for a new one). */
  readonly symbols: readonly SymbolRecord[];
  readonly before_symbols: readonly SymbolRecord[];
  readonly changes: readonly SymbolChange[];
  readonly diagnostics: readonly Diagnostic[];
  /** What links its changes to their consumers (see `contractLink`). */
  readonly link: ContractLink;
}

/**
 * Compares two versions of a contract file; null where neither version is a contract. A version that does not
 * parse makes nothing changed (not every symbol removed), as for code, with its diagnostic.
 */
export function analyzeContract(
  repoPath: string,
  before: Uint8Array | null,
  after: Uint8Array | null,
  hash: HashText,
  options: {
    /** Where the version before (a blob of git's, read again edit after edit) is kept by its content hash. */
    readonly beforeCache?: ContractCache | null;
    /** An OpenAPI document's other files its `$ref`s reach (`openapiRefFiles`), as they were and as they are. */
    readonly beforeFiles?: RefFiles | null;
    readonly afterFiles?: RefFiles | null;
  } = {},
): ContractAnalysis | null {
  const bytes = (b: Uint8Array | null): Buffer | null => (b === null ? null : Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  const head = (b: Uint8Array | null): string | null => bytes(b)?.subarray(0, 4096).toString("utf8") ?? null;
  // Either version says: a document emptied or broken is still the contract it was.
  const kind = contractKindOf(repoPath, head(after)) ?? contractKindOf(repoPath, head(before));
  if (kind === null) return null;
  const none = contractLink(kind, null, null, []);
  // (measured before anything is decoded: a generated bundle is not read whole)
  const tooLarge = [before, after].some((v) => v !== null && v.byteLength > MAX_CONTRACT_BYTES);
  if (tooLarge) {
    const d = { code: "file_too_large", severity: "warning" as const, path: repoPath, message: `over ${MAX_CONTRACT_BYTES} bytes: not read as a contract` };
    return { kind, symbols: [], before_symbols: [], changes: [], diagnostics: [d], link: none };
  }
  const [bText, aText] = [bytes(before)?.toString("utf8") ?? null, bytes(after)?.toString("utf8") ?? null];
  const [bFiles, aFiles] = [options.beforeFiles ?? null, options.afterFiles ?? null];
  const b = bText === null ? null : { text: bText, path: repoPath, files: bFiles, ...cachedVersion(kind, repoPath, bText, hash, options.beforeCache ?? null, bFiles) };
  const a = aText === null ? null : { text: aText, path: repoPath, files: aFiles, ...contractSymbolsOf(kind, repoPath, aText, hash, aFiles) };
  const failed = [b, a].filter((v) => v?.diagnostics.some((d) => d.code === "parse_error") === true);
  if (failed.length > 0) return { kind, symbols: [], before_symbols: [], changes: [], diagnostics: failed.flatMap((v) => v?.diagnostics ?? []), link: none };
  const changes = compareContract(kind, b, a);
  const breaking = changes.filter((c) => c.compatibility === "breaking");
  return { kind, symbols: a?.symbols ?? [], before_symbols: b?.symbols ?? [], changes, diagnostics: a?.diagnostics ?? [], link: contractLink(kind, bText, aText, breaking) };
}

/** What links a contract's changes to the code that uses them: the package they are filed under, and each change's names. */
export interface ContractLink {
  /** The contract namespace (`graphql:schema`, `openapi:http`, `protobuf:<package>` as a package key's parts). */
  readonly package: { readonly name: string; readonly ecosystem: ContractKind };
  /** Per changed symbol, the names a consumer's use gives it (`contractUses`), itself first; at most 64 (the wire's). */
  readonly publicNames: ReadonlyMap<string, readonly string[]>;
  /** A GraphQL schema's text as it was (else as it is): what a consumer's documents are resolved against, where it can be. */
  readonly schemaText?: string;
}

/**
 * The names under which a contract's changes reach their consumers: a GraphQL field by its coordinate and by each
 * path from a root type that selects it; an HTTP operation as a call names it (`GET /orders/{}`, with and without the
 * servers' base path); a protobuf symbol by its name in its package, and by the top-level message, enum or service
 * (and its `Client`, and Python's `Stub`) that generated code is imported under.
 */
export function contractLink(kind: ContractKind, before: string | null, after: string | null, changes: readonly SymbolChange[]): ContractLink {
  const names = new Map<string, string[]>(changes.map((c) => [c.qualified_name, [c.qualified_name]]));
  if (kind === "graphql") {
    const fields = changes.filter((c) => c.qualified_name.includes(".") && !c.qualified_name.startsWith("@")).map((c) => c.qualified_name);
    for (const text of [after, before]) {
      if (text === null) continue;
      for (const [coordinate, paths] of graphqlRootPaths(text, fields)) names.set(coordinate, [...new Set([...(names.get(coordinate) ?? []), ...paths])]);
    }
    const schemaText = before ?? after;
    return { package: { name: "schema", ecosystem: "graphql" }, publicNames: capped(names), ...(schemaText === null ? {} : { schemaText }) };
  }
  if (kind === "openapi") {
    const bases = [...new Set([...(after === null ? [] : openapiBasePaths(after)), ...(before === null ? [] : openapiBasePaths(before))])];
    // A generated client calls an operation by its operationId (`op:getOrderById`; Python's `op:get_order_by_id`).
    const ids = [before, after].map((t) => (t === null || !changes.some((c) => c.kind === "operation") ? new Map<string, string>() : openapiOperationIds(t)));
    for (const c of changes) {
      const m = /^([A-Z]+) (\/.*)$/.exec(c.qualified_name);
      if (c.kind !== "operation" || m === null) continue;
      const id = ids[1]?.get(c.qualified_name) ?? ids[0]?.get(c.qualified_name);
      const byId = id === undefined ? [] : [...new Set([`op:${id}`, `op:${snakeCase(id)}`])];
      names.set(c.qualified_name, [c.qualified_name, ...operationCallNames(m[1] as string, m[2] as string, bases), ...byId]);
    }
    return { package: { name: "http", ecosystem: "openapi" }, publicNames: capped(names) };
  }
  // Generated code imports a message, an enum or a service's client by name: a field or an RPC is reached through it.
  for (const c of changes) {
    const top = c.qualified_name.split(".")[0] ?? c.qualified_name;
    // (a service by its TypeScript client and its Python stub too: what a search for its users looks for)
    const extra = c.kind === "operation" || c.kind === "interface" ? [top, `${top}Client`, `${top}Stub`] : [top];
    names.set(c.qualified_name, [...new Set([c.qualified_name, ...extra])]);
  }
  const pkg = /^\s*package\s+([\w.]+)\s*;/m.exec(after ?? before ?? "")?.[1] ?? "";
  return { package: { name: pkg, ecosystem: "protobuf" }, publicNames: capped(names) };
}

/** `getOrderById` as Python's generated clients name it: `get_order_by_id`. */
function snakeCase(id: string): string {
  return id
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/-/g, "_")
    .toLowerCase();
}

/** Each change's names, at most 64 (what the wire carries), its own name first. */
function capped(names: Map<string, string[]>): Map<string, string[]> {
  return new Map([...names].map(([k, v]) => [k, v.slice(0, 64)]));
}

/** The changes between two versions of one contract, each with its symbols (and an OpenAPI document's path and the files its `$ref`s reach). */
export function compareContract(kind: ContractKind, before: OpenapiVersion | null, after: OpenapiVersion | null): SymbolChange[] {
  switch (kind) {
    case "graphql":
      return compareGraphql(before, after);
    case "openapi":
      return compareOpenapi(before, after);
    case "protobuf":
      return compareProtobuf(before, after);
  }
}
