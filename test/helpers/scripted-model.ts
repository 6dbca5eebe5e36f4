import * as http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A scripted model behind the Anthropic Messages API, on 127.0.0.1, for driving the real Claude Code CLI headless
 * (`ANTHROPIC_BASE_URL`). The agent loop's requests (those that offer the `Edit` tool) get the script's next step;
 * Claude Code's side requests (titles, summaries) get a short text. Every agent-loop request is kept as sent, so a
 * test reads exactly what the model was given: tool results, denials, hook context.
 */

/** One turn of the model: call a tool, or answer with text (which ends Claude Code's loop). */
export type ModelStep = { readonly tool: string; readonly input: Readonly<Record<string, unknown>> } | { readonly text: string };

/** A step, or a function that makes it when the request arrives (to wait for another session first). */
export type ScriptedStep = ModelStep | ((request: MessagesRequest) => Promise<ModelStep>);

export interface ContentBlock {
  readonly type: string;
  readonly text?: string;
  readonly content?: unknown;
  readonly is_error?: boolean;
  readonly tool_use_id?: string;
  readonly id?: string;
  readonly name?: string;
  readonly input?: unknown;
}

export interface MessagesRequest {
  readonly model: string;
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string | readonly ContentBlock[] }>;
  readonly tools?: ReadonlyArray<{ readonly name: string }>;
}

export interface ScriptedModel {
  readonly url: string;
  /** The agent loop's requests, in order. */
  readonly requests: readonly MessagesRequest[];
  /** Resolves once this many agent-loop requests arrived. */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startScriptedModel(script: readonly ScriptedStep[]): Promise<ScriptedModel> {
  const requests: MessagesRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let next = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const url = req.url ?? "";
        if (req.method !== "POST" || !url.startsWith("/v1/messages") || url.includes("count_tokens")) {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ input_tokens: 1 }));
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as MessagesRequest;
        const agentLoop = (body.tools ?? []).some((t) => t.name === "Edit");
        let step: ModelStep = { text: "ok" };
        if (agentLoop) {
          requests.push(body);
          for (const w of waiters.filter((w) => requests.length >= w.count)) w.resolve();
          const s = script[next++] ?? { text: "done" };
          step = typeof s === "function" ? await s(body) : s;
        }
        stream(res, body.model, step, requests.length);
      })().catch((error: unknown) => {
        res.writeHead(500);
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
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
function stream(res: http.ServerResponse, model: string, step: ModelStep, n: number): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const event = (type: string, data: Record<string, unknown>): void => {
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
export function seenByModel(requests: readonly MessagesRequest[]): { results: Array<{ text: string; isError: boolean }>; texts: string[] } {
  const last = requests.at(-1);
  const results: Array<{ text: string; isError: boolean }> = [];
  const texts: string[] = [];
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

function blockText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((c: { text?: unknown }) => (typeof c.text === "string" ? c.text : "")).join("");
  return "";
}
