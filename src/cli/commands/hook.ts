import { parseArgs } from "node:util";
import type { HookRuntime } from "../../hook/hook-input.js";
import { runHook } from "../../hook/run-hook.js";
import type { CliIo } from "../io.js";

export const HOOK_USAGE = `usage: comity hook --tool <claude_code|codex|cursor|copilot|omp|compozy> --event <NativeEvent> < payload.json

What each agent host runs at its hook events (comity init writes the
commands): reads the host's hook JSON on stdin and prints the host's native
answer: a denial before a tool runs, added context, or nothing. Always
exits 0: a hook never breaks the agent; a failure prints nothing and adds
one line to hook.log in the config folder (comity doctor sums them up).

  --tool   the host: claude_code, codex, cursor, copilot, omp, compozy
  --event  the host's own event name, for example
             Claude Code, Codex: SessionStart UserPromptSubmit PreToolUse
                                 PostToolUse Stop SessionEnd
             Cursor: sessionStart beforeSubmitPrompt preToolUse
                     beforeShellExecution afterFileEdit afterShellExecution
                     stop sessionEnd
             Copilot CLI: sessionStart userPromptSubmitted preToolUse
                          postToolUse agentStop sessionEnd
             CompozyOS: session.post_create input.pre_submit tool.pre_call
                        tool.post_call session.pre_stop session.post_stop

Environment:
  COMITY_API_URL, COMITY_TOKEN  a team's comity serve (else what comity login
                                saved; else this machine's embedded store;
                                COMITY_API_URL=off: briefings only)
  COMITY_AGENT_NAME             how other agents see this one (default: the
                                host name)
  COMITY_CONFIG_DIR             the config folder (hook.log, store, caches)
  COMITY_SHARE_STATUS=0         send no status excerpt at Stop
`;

/** `comity hook`: exit code 0 whatever happens (a hook never breaks the agent). */
export async function hookCommand(args: readonly string[], io: CliIo, runtime?: HookRuntime): Promise<number> {
  // A person asking, or running it by hand on a terminal with nothing to read: the usage, not a silent fail-open.
  if (args.includes("--help") || args.includes("-h") || (args.length === 0 && io.stdinIsTTY === true)) {
    io.stdout.write(HOOK_USAGE);
    return 0;
  }
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
  const out = await runHook({
    tool,
    event,
    stdin,
    env: io.env,
    cwd: io.cwd,
    ...(runtime === undefined ? {} : { runtime }),
    ...(io.hookEndsAt === undefined ? {} : { endsAt: io.hookEndsAt }),
  });
  if (out.stdout !== "") io.stdout.write(out.stdout);
  return 0;
}
