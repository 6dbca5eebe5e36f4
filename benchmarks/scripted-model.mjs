import { spawn } from "node:child_process";
import * as http from "node:http";

// A scripted model for the real host CLIs, shared by their tests (test/hook/real-claude-code.test.ts) and
// benchmarks/real-claude-code.mjs; its types are in scripted-model.d.mts.

/**
 * A scripted model on 127.0.0.1 for driving the real host CLIs headless: the Anthropic Messages API for Claude Code
 * (`ANTHROPIC_BASE_URL`), or the OpenAI Responses API for Codex (a custom model provider's `base_url`). The agent
 * loop's requests (Claude Code's that offer the `Edit` tool; every one of Codex's) get the script's next step; Claude
 * Code's side requests (titles, summaries) get a short text. Every agent-loop request is kept as sent, so a test reads
 * exactly what the model was given: tool results, denials, hook context.
 *
 * `script`: the steps, in order (a step: `{tool, input}`, `{text}`, or an async function of the request that returns
 * one, to wait for another session first); past the last, it answers "done". For Codex, a step `{tool: "apply_patch",
 * input: {patch}}` is its freeform apply_patch tool; any other tool is a function call with `input` as arguments.
 */
export async function startScriptedModel(script, { api = "messages" } = {}) {
  const requests = [];
  const arrivals = [];
  const waiters = [];
  let next = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const url = (req.url ?? "").replace(/\?.*$/, "");
        const served = api === "responses" ? url.endsWith("/responses") : url.startsWith("/v1/messages") && !url.includes("count_tokens");
        if (req.method !== "POST" || !served) {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ input_tokens: 1 }));
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        const agentLoop = api === "responses" || (body.tools ?? []).some((t) => t.name === "Edit");
        let step = { text: "ok" };
        if (agentLoop) {
          requests.push(body);
          arrivals.push(performance.now());
          for (const w of waiters.filter((w) => requests.length >= w.count)) w.resolve();
          const s = script[next++] ?? { text: "done" };
          step = typeof s === "function" ? await s(body) : s;
        }
        (api === "responses" ? streamResponses : stream)(res, body.model, step, requests.length);
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
    arrivals,
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

/** The step as the Responses API streams it (server-sent events), as Codex reads them. */
function streamResponses(res, _model, step, n) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const event = (data) => res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
  const id = `resp_${n}`;
  event({ type: "response.created", response: { id } });
  let item;
  // A Responses API output item as given (Codex's client-executed `tool_search_call`, which its deferred MCP tools
  // are found by), its call id filled in.
  if ("item" in step) item = { call_id: `call_${n}`, ...step.item };
  else if (!("tool" in step)) item = { type: "message", role: "assistant", id: `msg_${n}`, content: [{ type: "output_text", text: step.text }] };
  else if (step.tool === "apply_patch") item = { type: "custom_tool_call", name: "apply_patch", input: String(step.input.patch ?? ""), call_id: `call_${n}` };
  else item = { type: "function_call", name: step.tool, arguments: JSON.stringify(step.input), call_id: `call_${n}` };
  event({ type: "response.output_item.done", item });
  event({ type: "response.completed", response: { id, usage: { input_tokens: 1, input_tokens_details: null, output_tokens: 1, output_tokens_details: null, total_tokens: 2 } } });
  res.end();
}

/** What the model was given in a conversation's last request: each tool's result, and every text block, in order. */
export function seenByModel(requests) {
  const last = requests.at(-1);
  const results = [];
  const texts = [];
  // The Responses API (Codex): one list of items; a tool's output carries no error flag, so what it says is read.
  if (Array.isArray(last?.input)) {
    for (const item of last.input) {
      if (item.type === "custom_tool_call_output" || item.type === "function_call_output") {
        const text = typeof item.output === "string" ? item.output : blockText(item.output?.content ?? item.output);
        results.push({ text, isError: !/^(Exit code: 0\b|Success\.)/.test(text) });
      } else if (item.type === "message") for (const c of item.content ?? []) if (typeof c.text === "string") texts.push(c.text);
    }
    return { results, texts };
  }
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
    // As a shell that starts it in `cwd` exports it.
    PWD: cwd,
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

/**
 * One headless Codex session (`codex exec`) of the CLI at `bin`, in `cwd`, with `codexHome` as its home, its model
 * the scripted one at `modelUrl` (a custom provider on the Responses API; `gpt-5.5` so that Codex offers its
 * apply_patch tool). Approvals and the sandbox are off, as an agent left to work runs, and so is the persisted hook
 * trust (the hooks are the ones `comity init` wrote, which a person would trust in /hooks).
 */
export function runCodex({ bin, cwd, env, modelUrl, codexHome, prompt = "Do the task." }) {
  const config = [
    'model="gpt-5.5"',
    'model_provider="comity_test"',
    'model_providers.comity_test.name="comity-test"',
    `model_providers.comity_test.base_url="${modelUrl}/v1"`,
    'model_providers.comity_test.wire_api="responses"',
  ];
  const args = ["exec", "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust", "--trust", "--skip-git-repo-check", ...config.flatMap((c) => ["-c", c]), prompt];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(bin, args, { cwd, env: { ...env, PWD: cwd, CODEX_HOME: codexHome }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c) => (stderr += c.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr, ms: performance.now() - started, result: null, hooks: [] }));
  });
}
