import * as fs from "node:fs";
import * as path from "node:path";
import { contractKindOf, MAX_CONTRACT_BYTES } from "./contract-kind.js";

/** At most this many OpenAPI documents are read to find the ones that reach a file. */
const MAX_DOCUMENTS = 8;
/** Folders of a repo's root that an API's documents are kept in, looked into besides the edited file's own folders. */
const API_FOLDER = /api|spec|swagger|openapi|contract|schema/i;
/** Files that are never part of an API description (a hook on every edit of them asks nothing). */
const NOT_A_FRAGMENT =
  /(^|\/)(\.github\/|\.vscode\/|node_modules\/)|(^|\/)(package(-lock)?|tsconfig[^/]*|jsconfig|composer|renovate|\.eslintrc[^/]*|biome|lerna|nx|turbo)\.json$|(^|\/)(pnpm-lock|pnpm-workspace|docker-compose[^/]*|\.gitlab-ci)\.ya?ml$/;

/** A YAML or JSON file that is not itself a contract may be part of one: another document's `$ref`s may reach it. */
export function mayBeFragment(repoPath: string): boolean {
  return /\.(ya?ml|json)$/i.test(repoPath) && !NOT_A_FRAGMENT.test(repoPath);
}

/** Whether a document's text names another file in a `$ref` (a cheap look before it is parsed for them). */
export const EXTERNAL_REF = /["']?\$ref["']?\s*:\s*["']?(?!#)[^\s"'#,}\]]/;

/**
 * The OpenAPI documents of the repo at `root` that a schema or path file (`repoPath`) may be part of: the documents in
 * its folder, in each folder above it, and in the root's folders named like an API's (`api/`, `spec/`, `openapi/`),
 * that name another file in a `$ref`; repo-relative, sorted, at most MAX_DOCUMENTS. Which of them reach the file is
 * for their `$ref`s to say (`openapiRefFiles`).
 */
export function candidateDocuments(root: string, repoPath: string): string[] {
  const folders: string[] = [];
  for (let dir = path.posix.dirname(repoPath); ; dir = path.posix.dirname(dir)) {
    folders.push(dir === "." ? "" : dir);
    if (dir === "." || dir === "/" || dir === "") break;
  }
  try {
    for (const e of fs.readdirSync(root, { withFileTypes: true })) if (e.isDirectory() && API_FOLDER.test(e.name) && !folders.includes(e.name)) folders.push(e.name);
  } catch {
    // (the root unreadable: its own folders only)
  }
  const out: string[] = [];
  for (const folder of folders) {
    let names: string[];
    try {
      names = fs.readdirSync(path.join(root, folder)).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      const rel = folder === "" ? name : `${folder}/${name}`;
      if (rel === repoPath || !/\.(ya?ml|json)$/i.test(name)) continue;
      const text = readSmall(path.join(root, rel));
      if (text === null || contractKindOf(rel, text.slice(0, 4096)) !== "openapi" || !EXTERNAL_REF.test(text)) continue;
      out.push(rel);
      if (out.length >= MAX_DOCUMENTS) return out.sort();
    }
  }
  return out.sort();
}

/** A file's text, or null for one that is not there, not a file, or over `maxBytes` (not read, then). */
export function readSmall(abs: string, maxBytes: number = MAX_CONTRACT_BYTES): string | null {
  try {
    const st = fs.statSync(abs);
    if (!st.isFile() || st.size > maxBytes) return null;
    return fs.readFileSync(abs, "utf8");
  } catch {
    return null;
  }
}
