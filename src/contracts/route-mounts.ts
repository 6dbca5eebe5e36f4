import * as fs from "node:fs";
import * as path from "node:path";
import { joinPaths, mountedPrefixesIn } from "./code-routes.js";
import { readSmall } from "./ref-documents.js";

/** How far up from a router's file its mounting file is looked for, and how many files are read to find it. */
const MAX_LEVELS_UP = 3;
const MAX_FILES_READ = 200;
const MAX_BYTES = 1024 * 1024;
/** How many mounts of mounts are followed (`app.use("/v1", api)` in one file, `api.use("/orders", orders)` in another). */
const MAX_DEPTH = 3;

const CODE = /\.(tsx?|mts|cts|jsx?|mjs|cjs)$/;

/**
 * The prefixes a router file's routes are served under, mounted by another file of the repo: `app.use("/v1/orders",
 * ordersRouter)` (or Hono's `app.route`) where `ordersRouter` is imported or required from it, and that file's own
 * prefix where it is mounted in turn. Looked for in the router's folder and the folders above it (three levels),
 * where an app's entry keeps its mounts. Empty where none is found: its routes are read as written.
 */
export function externalMountPrefixes(root: string, repoPath: string): string[] {
  const budget = { files: MAX_FILES_READ };
  return [...new Set(prefixesOf(root, repoPath, budget, 0))].sort();
}

function prefixesOf(root: string, repoPath: string, budget: { files: number }, depth: number): string[] {
  if (depth >= MAX_DEPTH) return [];
  const stem = path.posix.basename(repoPath).replace(/\.[^.]+$/, "");
  const out: string[] = [];
  let dir = path.posix.dirname(repoPath);
  for (let level = 0; level <= MAX_LEVELS_UP; level++) {
    const folder = dir === "." ? "" : dir;
    let names: string[] = [];
    try {
      names = fs
        .readdirSync(path.join(root, folder))
        .filter((n) => CODE.test(n))
        .sort();
    } catch {
      // (not a folder we can read)
    }
    for (const name of names) {
      const file = folder === "" ? name : `${folder}/${name}`;
      if (file === repoPath || budget.files <= 0) continue;
      budget.files--;
      const text = readSmall(path.join(root, file), MAX_BYTES);
      if (text === null || !text.includes(stem) || !/\.\s*(?:use|route)\s*\(/.test(text)) continue;
      const bindings = bindingsOf(text, file, repoPath);
      if (bindings.size === 0) continue;
      for (const prefix of mountsOf(text, bindings)) {
        const above = prefixesOf(root, file, budget, depth + 1);
        if (above.length === 0) out.push(prefix);
        else for (const a of above) out.push(joinPaths(a, prefix));
      }
    }
    if (folder === "") break;
    dir = path.posix.dirname(dir);
  }
  return out;
}

/**
 * The names a file gives what it imports from the module at `target`: a default or named import, a namespace, a
 * `require` assigned or destructured, and `require(...)` itself where it is mounted inline.
 */
function bindingsOf(text: string, file: string, target: string): Set<string> {
  const out = new Set<string>();
  const resolves = (spec: string): boolean => resolvesTo(file, spec, target);
  for (const m of text.matchAll(/\bimport\s+([^'";]*?)\s+from\s+["']([^"']+)["']/g)) {
    if (!resolves(m[2] ?? "")) continue;
    const clause = m[1] ?? "";
    const def = /^\s*([\w$]+)\s*(?:,|$)/.exec(clause)?.[1];
    if (def !== undefined && def !== "type") out.add(def);
    const ns = /\*\s*as\s+([\w$]+)/.exec(clause)?.[1];
    if (ns !== undefined) out.add(ns);
    for (const n of (/\{([^}]*)\}/.exec(clause)?.[1] ?? "").split(",")) {
      const local = n
        .trim()
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (local !== undefined && /^[\w$]+$/.test(local)) out.add(local);
    }
  }
  for (const m of text.matchAll(/\b(?:const|let|var)\s+(\{[^}]*\}|[\w$]+)\s*=\s*require\s*\(\s*["']([^"']+)["']\s*\)/g)) {
    if (!resolves(m[2] ?? "")) continue;
    const lhs = m[1] ?? "";
    if (lhs.startsWith("{")) {
      for (const n of lhs.slice(1, -1).split(",")) {
        const local = n
          .trim()
          .split(/\s*:\s*/)
          .pop()
          ?.trim();
        if (local !== undefined && /^[\w$]+$/.test(local)) out.add(local);
      }
    } else out.add(lhs);
  }
  for (const m of text.matchAll(/require\s*\(\s*["']([^"']+)["']\s*\)/g)) if (resolves(m[1] ?? "")) out.add(m[0].replace(/\s+/g, ""));
  return out;
}

/** The prefixes a file mounts one of `bindings` under, with the prefix of the router it mounts it on in that file. */
function mountsOf(text: string, bindings: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const within = mountedPrefixesIn(text);
  for (const m of text.matchAll(/([\w$]+)\s*\.\s*(?:use|route)\s*\(\s*(["'`])([^"'`\n]*)\2\s*,([^;]*?)\)\s*(?:;|\n)/g)) {
    const args = (m[4] ?? "").split(",").map((a) => a.trim().replace(/\s+/g, ""));
    // (a middleware may come first: `app.use("/v1", auth, orders)`; `orders.router` names the module's router)
    if (!args.some((a) => bindings.has(a) || bindings.has(a.split(".")[0] ?? ""))) continue;
    if (!(m[3] ?? "").startsWith("/")) continue;
    out.push(joinPaths(within.get(m[1] ?? "") ?? "", m[3] ?? ""));
  }
  return out;
}

/** Whether an import specifier in `file` names the module at `target` (extension left out, `.js` for `.ts`, a folder's index). */
function resolvesTo(file: string, spec: string, target: string): boolean {
  if (!spec.startsWith(".")) return false;
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
  const bare = joined.replace(/\.(?:[cm]?js|jsx|tsx?|mts|cts)$/, "");
  const targetBare = target.replace(/\.(?:[cm]?js|jsx|tsx?|mts|cts)$/, "");
  return bare === targetBare || `${bare}/index` === targetBare;
}
