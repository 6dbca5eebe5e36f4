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

/**
 * An update's hunks, per path as written: each hunk's old lines (its context and `-` lines, joined as they stand in
 * the file) and, inside them, the lines it removes or where it inserts (0-based, an insertion after line k being
 * `[k + 1, k]`). Where each hunk lands in the file, never what it writes. An added or deleted file has none.
 */
export function patchHunks(text: string): Map<string, Array<{ old: string; within: Array<[number, number]> }>> {
  const out = new Map<string, Array<{ old: string; within: Array<[number, number]> }>>();
  let current: string | null = null;
  let hunk: { old: string[]; within: Array<[number, number]>; pendingAdd: boolean } | null = null;
  const flush = (): void => {
    if (current === null || hunk === null || hunk.old.length === 0) return;
    if (hunk.pendingAdd) hunk.within.push([hunk.old.length, hunk.old.length - 1]);
    out.set(current, [...(out.get(current) ?? []), { old: `${hunk.old.join("\n")}\n`, within: hunk.within }]);
  };
  for (const { header, line } of patchLines(text)) {
    if (header !== null) {
      flush();
      hunk = null;
      current = header.kind === "update" ? header.path : null;
      continue;
    }
    if (current === null) continue;
    if (line.startsWith("@@")) {
      flush();
      hunk = { old: [], within: [], pendingAdd: false };
      continue;
    }
    hunk ??= { old: [], within: [], pendingAdd: false };
    if (line.startsWith("-")) {
      hunk.pendingAdd = false;
      hunk.within.push([hunk.old.length, hunk.old.length]);
      hunk.old.push(line.slice(1));
    } else if (line.startsWith("+")) {
      // An addition next to a removal is part of that change; alone, an insertion where it stands.
      const last = hunk.within.at(-1);
      if (last === undefined || last[1] !== hunk.old.length - 1) hunk.pendingAdd = true;
    } else {
      if (hunk.pendingAdd) hunk.within.push([hunk.old.length, hunk.old.length - 1]);
      hunk.pendingAdd = false;
      hunk.old.push(line.startsWith(" ") ? line.slice(1) : line);
    }
  }
  flush();
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
