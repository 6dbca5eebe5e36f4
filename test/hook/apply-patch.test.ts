import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { carriesPatch, parseApplyPatch, patchAddedText, patchPaths } from "../../src/hook/apply-patch.js";
import { classifyTool, detectHost, mapEvent, normalizeTool } from "../../src/hook/hosts.js";

describe("parseApplyPatch", () => {
  it("reads Add, Update with Move to, and Delete operations", () => {
    const text =
      "*** Begin Patch\n*** Add File: a/new.ts\n+export const x = 1;\n*** Update File: b.ts\n*** Move to: c/moved.ts\n@@ class A\n-  old()\n+  new()\n*** End of File\n*** Delete File: gone.py\n*** End Patch\n";
    expect(parseApplyPatch(text)).toEqual([
      { kind: "add", path: "a/new.ts", moveTo: null },
      { kind: "update", path: "b.ts", moveTo: "c/moved.ts" },
      { kind: "delete", path: "gone.py", moveTo: null },
    ]);
    expect(patchPaths(parseApplyPatch(text))).toEqual(["a/new.ts", "b.ts", "c/moved.ts", "gone.py"]);
  });

  it("ignores text outside the envelope and tolerates a missing End Patch", () => {
    expect(parseApplyPatch("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: x.ts\n@@\n-a\n+b\nEOF")).toEqual([{ kind: "update", path: "x.ts", moveTo: null }]);
    expect(parseApplyPatch("*** Update File: outside.ts")).toEqual([]);
    expect(carriesPatch("cat <<EOF\n*** Begin Patch\n")).toBe(true);
    expect(carriesPatch("echo '*** Begin Patch' > f")).toBe(false);
  });

  it("finds exactly the files of any generated envelope, whatever the hunks hold (property)", () => {
    const file = fc.stringMatching(/^[a-z][a-z0-9_/-]{0,20}\.(ts|py|md)$/);
    const hunkLine = fc.oneof(
      fc.string({ maxLength: 40 }).map((s) => `+${s.replace(/\n/g, "")}`),
      fc.string({ maxLength: 40 }).map((s) => `-${s.replace(/\n/g, "")}`),
      fc.constant("@@"),
    );
    const op = fc.oneof(
      fc.record({ kind: fc.constant("add" as const), path: file, hunks: fc.array(hunkLine, { maxLength: 4 }) }),
      fc.record({ kind: fc.constant("update" as const), path: file, moveTo: fc.option(file, { nil: null }), hunks: fc.array(hunkLine, { maxLength: 4 }) }),
      fc.record({ kind: fc.constant("delete" as const), path: file }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 8 }), (ops) => {
        const text = [
          "*** Begin Patch",
          ...ops.flatMap((o) =>
            o.kind === "add"
              ? [`*** Add File: ${o.path}`, ...o.hunks]
              : o.kind === "update"
                ? [`*** Update File: ${o.path}`, ...(o.moveTo === null ? [] : [`*** Move to: ${o.moveTo}`]), ...o.hunks]
                : [`*** Delete File: ${o.path}`],
          ),
          "*** End Patch",
        ].join("\n");
        expect(parseApplyPatch(text)).toEqual(ops.map((o) => ({ kind: o.kind, path: o.path, moveTo: o.kind === "update" ? o.moveTo : null })));
      }),
      { numRuns: 500 },
    );
  });

  it("never throws on arbitrary text (property)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 500 }), (s) => void parseApplyPatch(`*** Begin Patch\n${s}`)),
      { numRuns: 1000 },
    );
  });
});

describe("host detection and event mapping", () => {
  it("detects hosts from the payload, --tool being a hint", () => {
    expect(detectHost("claude_code", { session_id: "s", transcript_path: "/t" }, {})).toBe("claude_code");
    expect(detectHost("claude_code", { conversation_id: "c" }, {})).toBe("cursor");
    expect(detectHost("claude_code", { session_id: "s" }, { CURSOR_VERSION: "1.2" })).toBe("cursor");
    expect(detectHost("claude_code", { sessionId: "s", toolName: "bash" }, {})).toBe("copilot");
    expect(detectHost("claude_code", { session_id: "s", timestamp: "2026-01-01T00:00:00Z" }, {})).toBe("copilot");
    expect(detectHost("codex", { session_id: "s" }, {})).toBe("codex");
    expect(detectHost("claude_code", { session_id: "s", turn_id: "t", transcript_path: null }, {})).toBe("codex");
    expect(detectHost("omp", {}, {})).toBe("omp");
  });

  it("normalises tool names and maps native events", () => {
    expect(["create", "write", "edit", "str_replace_editor", "Shell", "bash", "powershell", "shell", "exec_command", "Read"].map(normalizeTool)).toEqual([
      "Write",
      "Write",
      "Edit",
      "Edit",
      "Bash",
      "Bash",
      "Bash",
      "Bash",
      "Bash",
      "Read",
    ]);
    expect(mapEvent("PreToolUse", classifyTool("Edit"))).toBe("pre_edit");
    expect(mapEvent("PreToolUse", classifyTool("Bash"))).toBe("pre_shell");
    expect(mapEvent("PreToolUse", classifyTool("ExitPlanMode"))).toBe("plan");
    expect(mapEvent("PreToolUse", classifyTool("Read"))).toBeNull();
    expect(mapEvent("PostToolUse", classifyTool("Bash"))).toBe("post_edit");
    expect(mapEvent("PostToolUse", classifyTool("WebFetch"))).toBeNull();
    expect(["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"].map((e) => mapEvent(e, "other"))).toEqual(["session_start", "prompt", "stop", "session_end"]);
  });
});

describe("patchAddedText", () => {
  it("gives each path the lines the envelope adds, under the moved-to path for a move, none for a delete", () => {
    const text =
      "*** Begin Patch\n*** Add File: a.ts\n+import { x } from './x';\n+export const a = x;\n*** Update File: b.ts\n*** Move to: c.ts\n@@\n-old\n+new\n*** Delete File: d.ts\n*** End Patch\n+outside\n";
    expect(Object.fromEntries(patchAddedText(text))).toEqual({ "a.ts": "import { x } from './x';\nexport const a = x;\n", "c.ts": "new\n" });
  });
});
