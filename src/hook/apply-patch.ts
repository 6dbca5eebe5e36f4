/** What one file operation of an apply_patch envelope does. */
export interface PatchOperation {
  readonly kind: "add" | "update" | "delete";
  /** The path as written (relative, POSIX). */
  readonly path: string;
  /** For an update with `*** Move to:`, the new path. */
  readonly moveTo: string | null;
}

/**
 * Reads the file operations of a Codex `apply_patch` envelope
 * (`*** Begin Patch` ... `*** End Patch` with `*** Add File:`,
 * `*** Update File:` [+ `*** Move to:`] and `*** Delete File:` headers). Hunk
 * lines are skipped; a missing `*** End Patch` or garbage around the envelope
 * is tolerated (a truncated patch still names its files). Pure; never throws.
 *
 * @example
 * parseApplyPatch("*** Begin Patch\n*** Update File: a.ts\n*** Move to: b.ts\n@@\n-x\n+y\n*** End Patch");
 * // [{ kind: "update", path: "a.ts", moveTo: "b.ts" }]
 */
export function parseApplyPatch(text: string): PatchOperation[] {
  const ops: PatchOperation[] = [];
  for (const { header } of patchLines(text)) {
    if (header === null) continue;
    if (header.kind === "move") {
      const last = ops[ops.length - 1];
      if (last?.kind === "update" && last.moveTo === null) ops[ops.length - 1] = { ...last, moveTo: header.path };
      continue;
    }
    ops.push({ kind: header.kind, path: header.path, moveTo: null });
  }
  return ops;
}

/**
 * The lines an envelope adds (its `+` lines), per path as written: an added file's content, an update's new
 * lines (under its `*** Move to:` path when it moves). What the edit writes, for an import scan before it runs.
 */
export function patchAddedText(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let current: string | null = null;
  for (const { header, line } of patchLines(text)) {
    if (header !== null) current = header.kind === "delete" ? null : header.path;
    else if (current !== null && line.startsWith("+")) out.set(current, `${out.get(current) ?? ""}${line.slice(1)}\n`);
  }
  return out;
}

/** Each line inside the envelope (`*** Begin Patch` … `*** End Patch`), with its header when it is one. */
function* patchLines(text: string): Generator<{ header: { kind: PatchOperation["kind"] | "move"; path: string } | null; line: string }> {
  let inside = false;
  for (const raw of text.replace(/\r\n?/g, "\n").split("\n")) {
    const line = raw.trimEnd();
    if (/^\s*\*\*\* Begin Patch\s*$/.test(line)) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (/^\*\*\* End Patch\s*$/.test(line)) {
      inside = false;
      continue;
    }
    const header = /^\*\*\* (Add File|Update File|Delete File|Move to): (.+)$/.exec(line);
    const p = header?.[2]?.trim() ?? "";
    if (header === null || p === "") {
      if (header === null) yield { header: null, line: raw };
      continue;
    }
    const kind = header[1] === "Move to" ? "move" : header[1] === "Add File" ? "add" : header[1] === "Delete File" ? "delete" : "update";
    yield { header: { kind, path: p }, line };
  }
}

/** Every path an envelope touches: added, updated, deleted, and moved-to paths. */
export function patchPaths(ops: readonly PatchOperation[]): string[] {
  return [...new Set(ops.flatMap((o) => (o.moveTo === null ? [o.path] : [o.path, o.moveTo])))];
}

/** Whether a shell command carries an apply_patch envelope (`apply_patch <<'EOF' ... *** Begin Patch`). */
export function carriesPatch(command: string): boolean {
  return /^\s*\*\*\* Begin Patch\s*$/m.test(command);
}
