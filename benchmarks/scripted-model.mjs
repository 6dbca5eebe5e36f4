import { spawn } from "node:child_process";
import * as http from "node:http";

// A scripted model for the real host CLIs, shared by their tests (test/hook/real-claude-code.test.ts) and
// benchmarks/real-claude-code.mjs; its types are in scripted-model.d.mts.

/**
 * A scripted model behind the Anthropic Messages API, on 127.0.0.1, for driving the real Claude Code CLI headless
 * (`ANTHROPIC_BASE_URL`). The agent loop's requests (those that offer the `Edit` tool) get the script's next step;
 * Claude Code's side requests (titles, summaries) get a short text. Every agent-loop request is kept as sent, so a
 * test reads exactly what the model was given: tool results, denials, hook context.
 */

/**
 * Starts the model. `script`: its steps, in order (a step: `{tool, input}`, `{text}`, or an async function of the
 * request that returns one, to wait for another session first); past the last, it answers "done".
 */
export async function startScriptedModel(script) {
  const requests = [];
  const waiters = [];
  let next = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const url = req.url ?? "";
        if (req.method !== "POST" || !url.startsWith("/v1/messages") || url.includes("count_tokens")) {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ input_tokens: 1 }));
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        const agentLoop = (body.tools ?? []).some((t) => t.name === "Edit");
        let step = { text: "ok" };
        if (agentLoop) {
          requests.push(body);
          for (const w of waiters.filter((w) => requests.length >= w.count)) w.resolve();
          const s = script[next++] ?? { text: "done" };
          step = typeof s === "function" ? await s(body) : s;
        }
        stream(res, body.model, step, requests.length);
      })().catch((error) => {
        res.writeHead(500);
        res.end(String(error));
      });
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = server.address().port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    waitForRequests: (count) =>
      requests.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => {
            waiters.push({ count, resolve });
          }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The step as the Messages API streams it (server-sent events). */
function stream(res, model, step, n) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const event = (type, data) => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  event("message_start", {
    message: { id: `msg_${n}`, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } },
  });
  if ("tool" in step) {
    event("content_block_start", { index: 0, content_block: { type: "tool_use", id: `toolu_${n}`, name: step.tool, input: {} } });
    event("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(step.input) } });
  } else {
    event("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    event("content_block_delta", { index: 0, delta: { type: "text_delta", text: step.text } });
  }
  event("content_block_stop", { index: 0 });
  event("message_delta", { delta: { stop_reason: "tool" in step ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: 1 } });
  event("message_stop", {});
  res.end();
}

/** What the model was given in a conversation's last request: each tool's result, and every text block, in order. */
export function seenByModel(requests) {
  const last = requests.at(-1);
  const results = [];
  const texts = [];
  for (const m of last?.messages ?? []) {
    if (typeof m.content === "string") {
      texts.push(m.content);
      continue;
    }
    for (const b of m.content) {
      if (b.type === "tool_result") results.push({ text: blockText(b.content), isError: b.is_error === true });
      else if (b.type === "text" && b.text !== undefined) texts.push(b.text);
    }
  }
  return { results, texts };
}

function blockText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((c) => (typeof c.text === "string" ? c.text : "")).join("");
  return "";
}

/**
 * One headless Claude Code session (`claude -p`) of the CLI at `bin`, in `cwd`, its model at `modelUrl`: permissions
 * skipped, as an agent left to work runs, and no traffic but to the model. As root, Claude Code takes
 * `--dangerously-skip-permissions` only with `IS_SANDBOX=1`. Resolves with its exit code, output, wall time (ms), its
 * result (the JSON it ends with) and, from its own `hook_started` and `hook_response` events, each hook's time as
 * their lines arrived on its stream.
 */
export function runClaude({ bin, cwd, env, modelUrl, prompt = "Do the task." }) {
  const sessionEnv = {
    ...env,
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: "sk-ant-test",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    IS_SANDBOX: "1",
  };
  const args = ["-p", prompt, "--dangerously-skip-permissions", "--output-format", "stream-json", "--verbose", "--include-hook-events"];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(bin, args, { cwd, env: sessionEnv, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let pending = "";
    let result = null;
    const hooks = [];
    const open = new Map();
    child.stdout.on("data", (c) => {
      const at = performance.now();
      const text = c.toString("utf8");
      stdout += text;
      pending += text;
      let nl = pending.indexOf("\n");
      while (nl >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        nl = pending.indexOf("\n");
        let event;
        try {
          event = JSON.parse(line);
        } catch {
          continue;
        }
        if (event.type === "result") result = event;
        if (event.subtype === "hook_started") open.set(event.hook_id, at);
        if (event.subtype === "hook_response" && open.has(event.hook_id)) hooks.push({ event: event.hook_event, ms: at - open.get(event.hook_id), outcome: event.outcome });
      }
    });
    child.stderr.on("data", (c) => (stderr += c.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr, ms: performance.now() - started, result, hooks }));
  });
}
