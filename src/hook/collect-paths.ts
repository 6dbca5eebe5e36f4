import * as path from "node:path";
import { parseApplyPatch, patchPaths } from "./apply-patch.js";

/** The paths an edit tool's input names, absolute (relative ones against `cwd`). */
export function editPaths(tool: string, input: Readonly<Record<string, unknown>>, cwd: string): string[] {
  const abs = (p: unknown): string[] => (typeof p === "string" && p !== "" ? [path.resolve(cwd, p)] : []);
  switch (tool) {
    case "Edit":
    case "Write":
    case "MultiEdit":
    case "Delete":
      return [...abs(input["file_path"]), ...abs(input["path"])];
    case "NotebookEdit":
      return abs(input["notebook_path"]);
    case "apply_patch": {
      const text = typeof input["command"] === "string" ? input["command"] : typeof input["input"] === "string" ? input["input"] : typeof input["patch"] === "string" ? input["patch"] : "";
      return patchPaths(parseApplyPatch(text)).map((p) => path.resolve(cwd, p));
    }
    default:
      return [];
  }
}

/** A shell tool's command text (`command` as a string, or Codex's argv array). */
export function shellCommand(input: Readonly<Record<string, unknown>>): string {
  const c = input["command"] ?? input["cmd"];
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.filter((x): x is string => typeof x === "string").join(" ");
  return "";
}
