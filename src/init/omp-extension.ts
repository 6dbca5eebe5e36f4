/** Where `comity init --tool omp` puts the extension (omp discovers extensions in this folder). */
export const OMP_EXTENSION_PATH = ".omp/extensions/comity.ts";

/** The events the extension forwards, in omp's names. */
export const OMP_EVENTS = ["session_start", "before_agent_start", "tool_call", "tool_result", "session_stop", "session_shutdown"] as const;

/** Each event's budget: then the extension answers nothing, which lets omp go on. */
export const OMP_BUDGET_MS = 600;

/**
 * The source of Comity's omp extension. omp has no stdin hooks: extensions
 * subscribe with `pi.on(event, handler)`, and a handler that throws BLOCKS
 * the tool call, so every path here ends in a value, never a throw. Each
 * event is serialised and handed to `comity hook --tool omp` (or `comity-hook --tool omp`: the hook command is
 * written in when installed); its JSON answer (`{block, reason}` or
 * `{additionalContext}`) is the handler's result.
 */
export function ompExtensionSource(hookCommand: string): string {
  const argv = hookCommand.split(/\s+/).filter((a) => a !== "");
  return `// Comity for omp: forwards ${OMP_EVENTS.join(", ")}
// to \`${hookCommand} --tool omp\`, waits at most ${OMP_BUDGET_MS} ms, then allows.
// Written by \`comity init --tool omp\`; rerun it to update. Never throws: omp blocks a tool call whose handler throws.
import { spawn } from "node:child_process";

const COMMAND: string[] = ${JSON.stringify(argv)};
const EVENTS = ${JSON.stringify(OMP_EVENTS)};
// COMITY_OMP_BUDGET_MS overrides the budget (a slow machine, a test).
const BUDGET_MS = Number(process.env["COMITY_OMP_BUDGET_MS"]) > 0 ? Number(process.env["COMITY_OMP_BUDGET_MS"]) : ${OMP_BUDGET_MS};

export default function comity(pi: { on(event: string, handler: (event: any, ctx: any) => unknown): void }): void {
  for (const name of EVENTS) {
    try {
      pi.on(name, (event: any, ctx: any) => forward(name, event, ctx).catch(() => undefined));
    } catch {
      // an omp without this event: nothing to forward
    }
  }
}

function payloadOf(name: string, event: any, ctx: any): string {
  const e = event ?? {};
  const sm = ctx?.sessionManager;
  let sessionId: unknown;
  try {
    sessionId = sm?.sessionId ?? sm?.getSessionId?.() ?? sm?.getSessionFile?.();
  } catch {
    sessionId = undefined;
  }
  return JSON.stringify({
    hook_event_name: name,
    session_id: typeof sessionId === "string" && sessionId !== "" ? sessionId : \`omp-\${process.pid}\`,
    cwd: typeof ctx?.cwd === "string" ? ctx.cwd : process.cwd(),
    model: typeof ctx?.model?.id === "string" ? ctx.model.id : null,
    tool_name: e.toolName ?? null,
    tool_use_id: e.toolCallId ?? null,
    tool_input: e.input ?? null,
    prompt: e.prompt ?? e.text ?? null,
  });
}

function forward(name: string, event: unknown, ctx: any): Promise<unknown> {
  return new Promise((resolve) => {
    let settled = false;
    let out = "";
    const finish = (value: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const timer = setTimeout(() => {
      try {
        child?.kill();
      } catch {
        // gone already
      }
      finish(undefined);
    }, BUDGET_MS);
    let child: ReturnType<typeof spawn> | undefined;
    try {
      const [bin, ...args] = COMMAND;
      child = spawn(bin ?? "comity", [...args, "--tool", "omp", "--event", name], { cwd: typeof ctx?.cwd === "string" ? ctx.cwd : process.cwd(), stdio: ["pipe", "pipe", "ignore"] });
      child.on("error", () => finish(undefined));
      child.stdout?.on("data", (chunk) => {
        out += String(chunk);
      });
      child.on("close", () => {
        try {
          finish(out.trim() === "" ? undefined : JSON.parse(out));
        } catch {
          finish(undefined);
        }
      });
      child.stdin?.on("error", () => undefined);
      child.stdin?.end(payloadOf(name, event, ctx));
    } catch {
      finish(undefined);
    }
  });
}
`;
}
