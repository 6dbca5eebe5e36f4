import { parseArgs } from "node:util";
import { runHook } from "../../hook/run-hook.js";
import type { CliIo } from "../io.js";

export const HOOK_USAGE = `usage: comity hook --tool <claude_code|codex|cursor|copilot|omp|compozy> --event <NativeEvent>

Reads the host's hook JSON on stdin and prints the host's native answer (a
deny, added context, or nothing). Always exits 0; failures are logged to
hook.log in the config folder.
`;

/** `comity hook`: exit code 0 whatever happens (a hook never breaks the agent). */
export async function hookCommand(args: readonly string[], io: CliIo): Promise<number> {
  let tool = "";
  let event = "";
  try {
    const { values } = parseArgs({ args: [...args], options: { tool: { type: "string", default: "" }, event: { type: "string", default: "" } }, strict: false });
    tool = typeof values.tool === "string" ? values.tool : "";
    event = typeof values.event === "string" ? values.event : "";
  } catch {
    // bad arguments: run with what we have; the pipeline fails open
  }
  const stdin = io.readStdin === undefined ? "" : await io.readStdin();
  const out = await runHook({ tool, event, stdin, env: io.env, cwd: io.cwd });
  if (out.stdout !== "") io.stdout.write(out.stdout);
  return 0;
}
