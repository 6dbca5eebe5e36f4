/**
 * One turn of the model: call a tool, answer with text (which ends Claude Code's loop), or (Responses API) give an
 * output item as it is, such as Codex's `tool_search_call` or a function call in a namespace.
 */
export type ModelStep = { readonly tool: string; readonly input: Readonly<Record<string, unknown>> } | { readonly text: string } | { readonly item: Readonly<Record<string, unknown>> };

/** A step, or a function that makes it when the request arrives (to wait for another session first). */
export type ScriptedStep = ModelStep | ((request: MessagesRequest) => Promise<ModelStep>);

export interface ContentBlock {
  readonly type: string;
  readonly text?: string;
  readonly content?: unknown;
  readonly is_error?: boolean;
  readonly tool_use_id?: string;
}

export interface MessagesRequest {
  readonly model: string;
  /** The Messages API's conversation (Claude Code). */
  readonly messages?: ReadonlyArray<{ readonly role: string; readonly content: string | readonly ContentBlock[] }>;
  /** The Responses API's items (Codex). */
  readonly input?: ReadonlyArray<Readonly<Record<string, unknown>>>;
  readonly tools?: ReadonlyArray<{ readonly name?: string }>;
}

export interface ScriptedModel {
  readonly url: string;
  /** The agent loop's requests, in order. */
  readonly requests: readonly MessagesRequest[];
  /** When each of them arrived (performance.now(), ms): the time between two is one tool call's round. */
  readonly arrivals: readonly number[];
  /** Resolves once this many agent-loop requests arrived. */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

export function startScriptedModel(script: readonly ScriptedStep[], options?: { api?: "messages" | "responses" }): Promise<ScriptedModel>;

/** What the model was given in a conversation's last request: each tool's result, and every text block, in order. */
export function seenByModel(requests: readonly MessagesRequest[]): { results: Array<{ text: string; isError: boolean }>; texts: string[] };

export interface HostRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall time of the whole session, in ms. */
  readonly ms: number;
  /** The `result` event the session ended with (`session_id`, `is_error`, ...), or null. */
  readonly result: { readonly session_id?: string; readonly is_error?: boolean; readonly [key: string]: unknown } | null;
  /** Each hook Claude Code ran, with its time from its `hook_started` to its `hook_response` event (ms). */
  readonly hooks: ReadonlyArray<{ readonly event: string; readonly ms: number; readonly outcome: string }>;
}

export function runClaude(options: { bin: string; cwd: string; env: NodeJS.ProcessEnv; modelUrl: string; prompt?: string }): Promise<HostRun>;

export function runCodex(options: { bin: string; cwd: string; env: NodeJS.ProcessEnv; modelUrl: string; codexHome: string; prompt?: string }): Promise<HostRun>;
