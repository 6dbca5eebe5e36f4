import * as fs from "node:fs";
import * as path from "node:path";
import type { ContractLink } from "../contracts/contract-files.js";
import { contractUses, GRAPHQL_KEY, graphqlDocuments } from "../contracts/contract-uses.js";
import { graphqlCoordinatesUsed } from "../contracts/graphql-contract.js";
import { compareStrings } from "../errors/diagnostic.js";
import type { GitConfigEnv } from "../git/load-git-config.js";
import { filesContaining } from "./files-containing.js";
import { packageKey, packageLabel } from "../packages/package-of-import.js";
import type { SymbolChange } from "../symbols/compare-symbols.js";

/** A breaking change of a service contract, and the files of one repo under the folder that use it. */
export interface ContractUser {
  /** The repo whose contract file changed, relative to the analysed folder. */
  readonly publisher: string;
  /** The contract file, relative to the publisher's root. */
  readonly path: string;
  readonly contract: "graphql" | "openapi" | "protobuf";
  readonly qualified_name: string;
  readonly change: string;
  readonly reasons: readonly string[];
  /** The repo whose files use it (the publisher itself, for a consumer in the same repo). */
  readonly consumer: string;
  readonly files: readonly string[];
}

export interface ContractRepo {
  readonly root: string;
  readonly abs: string;
  readonly changes: ReadonlyArray<{ path: string; symbols: readonly SymbolChange[] | null }>;
  /** Whether `changes` lists every file that differs from HEAD (untracked ones too). */
  readonly complete: boolean;
}

const SCANNED = /\.(tsx?|mts|cts|jsx?|mjs|cjs|pyi?|graphql|gql)$/;

/**
 * The files that use each breaking change of the changed contracts, in every repo under the folder (the
 * publisher's own included): candidates by `git grep` for a word of the change's names (a field's name, an
 * operation's last literal segment), then read as the hooks read them (`contractUses`: GraphQL selections, HTTP
 * calls) and kept where a use names the change. Sorted by publisher, path, name, consumer.
 */
export async function contractUsers(repos: readonly ContractRepo[], changed: ReadonlyArray<{ publisher: string; path: string; link: ContractLink }>, where: GitConfigEnv): Promise<ContractUser[]> {
  type Wanted = { publisher: string; path: string; contract: ContractUser["contract"]; change: SymbolChange; names: Set<string>; key: string; schemaText: string | null };
  const wanted: Wanted[] = [];
  for (const c of changed) {
    const repo = repos.find((r) => r.root === c.publisher);
    const symbols = repo?.changes.find((x) => x.path === c.path)?.symbols ?? [];
    const key = packageKey(c.link.package.ecosystem, c.link.package.name) ?? "";
    for (const s of symbols) {
      // (a server's code file carries its code symbols' changes beside its routes': only the routes are the contract's)
      if (s.compatibility !== "breaking" || !c.link.publicNames.has(s.qualified_name)) continue;
      wanted.push({
        publisher: c.publisher,
        path: c.path,
        contract: c.link.package.ecosystem,
        change: s,
        names: new Set(c.link.publicNames.get(s.qualified_name) ?? [s.qualified_name]),
        key,
        schemaText: c.link.schemaText ?? null,
      });
    }
  }
  if (wanted.length === 0) return [];
  const words = [...new Set(wanted.flatMap((w) => [...w.names].map(wordOf).filter((x) => x.length >= 2)))];
  if (words.length === 0) return [];
  const out: ContractUser[] = [];
  for (const repo of repos) {
    const uses = new Map<string, Set<string>>();
    const schemas = [...new Set(wanted.flatMap((w) => (w.schemaText === null ? [] : [w.schemaText])))];
    for (const f of await filesContaining(repo, words, where, { wholeWords: true })) {
      if (!SCANNED.test(f)) continue;
      let text: string;
      try {
        text = fs.readFileSync(path.join(repo.abs, f), "utf8");
      } catch {
        continue;
      }
      // (analyze reads generated clients too, which pass a megabyte; the hooks read up to one)
      const named = new Set(contractUses(f, text, 32 * 1024 * 1024).map((u) => `${u.module}\0${u.name}`));
      // Where the schema is at hand, a document's fields are resolved against it exactly (graphql-js's TypeInfo),
      // not only by the paths a change carries.
      for (const doc of graphqlDocuments(f, text)) for (const schemaText of schemas) for (const c of graphqlCoordinatesUsed(doc, schemaText)) named.add(`${GRAPHQL_KEY}\0${c}`);
      uses.set(f, named);
    }
    for (const w of wanted) {
      const files = [...uses]
        .filter(([f, names]) => !(repo.root === w.publisher && f === w.path) && [...w.names].some((n) => names.has(`${w.key}\0${n}`)))
        .map(([f]) => f)
        .sort(compareStrings);
      if (files.length === 0) continue;
      out.push({
        publisher: w.publisher,
        path: w.path,
        contract: w.contract,
        qualified_name: w.change.qualified_name,
        change: w.change.change,
        reasons: w.change.reasons.map((r) => r.code),
        consumer: repo.root,
        files,
      });
    }
  }
  return out.sort((a, b) => compareStrings(a.publisher, b.publisher) || compareStrings(a.path, b.path) || compareStrings(a.qualified_name, b.qualified_name) || compareStrings(a.consumer, b.consumer));
}

/** The word of a name that a file using it must contain: a field's own name, an operation path's last literal segment, an operationId. */
function wordOf(name: string): string {
  if (name.startsWith("op:")) return name.slice(3);
  const op = /^[A-Z]+ (\/.*)$/.exec(name);
  if (op !== null) {
    const literal = (op[1] ?? "").split("/").filter((s) => s !== "" && !s.includes("{"));
    return literal.at(-1) ?? "";
  }
  return name.slice(name.lastIndexOf(".") + 1);
}

/** The briefing's lines: which contract change is used where. */
export function describeContractUsers(users: readonly ContractUser[], max = 12): string {
  if (users.length === 0) return "";
  const lines = users.slice(0, max).map((u) => {
    const key = packageKey(u.contract, u.contract === "graphql" ? "schema" : u.contract === "openapi" ? "http" : "") ?? "";
    const files = `${u.files
      .slice(0, 4)
      .map((f) => `\`${f}\``)
      .join(", ")}${u.files.length > 4 ? ` and ${u.files.length - 4} more` : ""}`;
    return `- \`${u.qualified_name}\` of ${u.contract === "protobuf" ? "a protobuf package" : packageLabel(key)} (${u.publisher}: \`${u.path}\`, ${u.change}${u.reasons.length > 0 ? `: ${u.reasons.join(", ")}` : ""}) is used by ${u.consumer === u.publisher ? "the same repo" : u.consumer} in ${files}`;
  });
  if (users.length > max) lines.push(`- and ${users.length - max} more`);
  return `Breaking changes of a service contract and the code that uses them:\n${lines.join("\n")}`;
}
