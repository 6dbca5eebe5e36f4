import * as fs from "node:fs";
import type { ContractKind } from "../symbols/types.js";

// Which files are contracts, with nothing loaded but this: every hook of every edit asks it, and the parsers
// (graphql, yaml, protobufjs) load only for a file that is one (`contract-files.ts`).

/** A contract file larger than this is not read as one (a generated bundle): it is reported, not parsed. */
export const MAX_CONTRACT_BYTES = 4 * 1024 * 1024;

/**
 * Whether a file is a service contract, and which: by its extension (`.graphql`, `.graphqls`, `.gql`, `.proto`), and
 * for YAML and JSON by its first top-level key (`openapi:` or `swagger:`, within `head`, the file's first bytes).
 */
export function contractKindOf(repoPath: string, head: string | null): ContractKind | null {
  const lower = repoPath.toLowerCase();
  if (/\.(graphqls?|gql)$/.test(lower)) return "graphql";
  if (lower.endsWith(".proto")) return "protobuf";
  if (head === null) return null;
  if (/\.ya?ml$/.test(lower)) return /^(?:openapi|swagger)\s*:/m.test(head) ? "openapi" : null;
  if (lower.endsWith(".json")) return /^\s*\{/.test(head) && /"(?:openapi|swagger)"\s*:\s*"\d/.test(head) ? "openapi" : null;
  return null;
}

/** Whether a file may be a contract by its name alone (YAML and JSON then say by their content). */
export function mayBeContract(repoPath: string): boolean {
  return /\.(graphqls?|gql|proto|ya?ml|json)$/i.test(repoPath);
}

/** Whether the file at `abs` is a contract now: by its name, and for YAML and JSON by its first 4 KiB. */
export function isContractFile(abs: string, repoPath: string): boolean {
  if (!mayBeContract(repoPath)) return false;
  if (contractKindOf(repoPath, null) !== null) return true;
  let fd: number | null = null;
  try {
    fd = fs.openSync(abs, "r");
    const head = Buffer.alloc(4096);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    return contractKindOf(repoPath, head.subarray(0, n).toString("utf8")) !== null;
  } catch {
    return false;
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}
