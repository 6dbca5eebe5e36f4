import * as path from "node:path";
import { readTextOrNull, type SyncFs } from "../fs/sync-fs.js";

const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** What HEAD says: a branch (possibly unborn), a detached commit, or garbage. */
export type HeadState = { readonly kind: "symbolic"; readonly ref: string } | { readonly kind: "detached"; readonly oid: string } | { readonly kind: "invalid"; readonly text: string | null };

/** Parses a HEAD file's text. Pure. */
export function parseHead(text: string | null): HeadState {
  const t = text?.trim() ?? null;
  if (t === null) return { kind: "invalid", text: null };
  const sym = /^ref:\s*(refs\/\S+)$/.exec(t);
  if (sym?.[1] !== undefined) return { kind: "symbolic", ref: sym[1] };
  if (OID.test(t)) return { kind: "detached", oid: t };
  return { kind: "invalid", text: t.slice(0, 80) };
}

/** Parses `packed-refs`: `<oid> <ref>` lines; peeled `^<oid>` lines and the header are skipped. Pure. */
export function parsePackedRefs(text: string): Map<string, string> {
  const refs = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^([0-9a-f]{40}(?:[0-9a-f]{24})?) (\S+)$/.exec(line.trim());
    if (m?.[1] !== undefined && m[2] !== undefined) refs.set(m[2], m[1]);
  }
  return refs;
}

/** Refuses names that would read outside the refs folders (`..`, absolute, backslashes). */
function isSafeRefName(ref: string): boolean {
  return ref !== "" && !ref.startsWith("/") && !ref.includes("..") && !ref.includes("\\") && !ref.includes("\0");
}

/** Refs that live in a worktree's own git dir rather than the common dir (git's `is_per_worktree_ref`). */
function isPerWorktree(ref: string): boolean {
  return !ref.startsWith("refs/") || ref.startsWith("refs/bisect/") || ref.startsWith("refs/worktree/") || ref.startsWith("refs/rewritten/");
}

/**
 * Reads refs of one repo without a git binary: loose refs (per-worktree ones
 * in the git dir, shared ones in the common dir, which isomorphic-git cannot
 * see for linked worktrees), then `packed-refs`; symbolic refs are followed.
 */
export class RefReader {
  readonly #fs: SyncFs;
  readonly #gitDir: string;
  readonly #commonDir: string;
  #packed: Map<string, string> | null = null;

  constructor(fs: SyncFs, gitDir: string, commonDir: string) {
    this.#fs = fs;
    this.#gitDir = gitDir;
    this.#commonDir = commonDir;
  }

  head(): HeadState {
    return parseHead(readTextOrNull(this.#fs, path.join(this.#gitDir, "HEAD")));
  }

  /** The commit a ref points to, or null when it does not exist (an unborn branch). */
  resolve(ref: string): string | null {
    let current = ref;
    for (let hops = 0; hops < 10; hops++) {
      if (!isSafeRefName(current)) return null;
      const dir = isPerWorktree(current) ? this.#gitDir : this.#commonDir;
      const loose = readTextOrNull(this.#fs, path.join(dir, ...current.split("/")))?.trim();
      if (loose !== undefined) {
        if (OID.test(loose)) return loose;
        const sym = /^ref:\s*(\S+)$/.exec(loose);
        if (sym?.[1] === undefined) return null;
        current = sym[1];
        continue;
      }
      return this.#packedRefs().get(current) ?? null;
    }
    return null;
  }

  /** The target of a symbolic ref (`refs/remotes/origin/HEAD` → `refs/remotes/origin/main`), or null. */
  symbolicTarget(ref: string): string | null {
    if (!isSafeRefName(ref)) return null;
    const dir = isPerWorktree(ref) ? this.#gitDir : this.#commonDir;
    const text = readTextOrNull(this.#fs, path.join(dir, ...ref.split("/")))?.trim();
    const sym = text === undefined ? null : /^ref:\s*(\S+)$/.exec(text);
    return sym?.[1] ?? null;
  }

  #packedRefs(): Map<string, string> {
    if (this.#packed === null) {
      const text = readTextOrNull(this.#fs, path.join(this.#commonDir, "packed-refs"));
      this.#packed = text === null ? new Map() : parsePackedRefs(text);
    }
    return this.#packed;
  }
}
