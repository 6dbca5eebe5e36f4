/**
 * The body of `POST /v1/hooks/evaluate` as the hook builds it
 * (`src/hook/build-request.ts`, `../shared/reference/comity-hook-events.md`).
 * Fields the server does not use are accepted and ignored, so a newer hook
 * keeps working against an older server; the fields it uses are checked.
 */
export const EVENTS = ["session_start", "prompt", "plan", "pre_edit", "pre_shell", "post_edit", "stop", "session_end", "pre_push"] as const;
export type EventName = (typeof EVENTS)[number];

export interface EvaluateRequest {
  readonly event: EventName;
  readonly dedupe_key: string;
  readonly session: { readonly external_id: string; readonly tool: string; readonly model?: string | null; readonly parent_external_id?: string | null };
  readonly repo: {
    readonly remote_fingerprints: readonly string[];
    readonly branch?: string | null;
    readonly head_sha?: string | null;
  };
  readonly paths?: readonly string[];
  readonly analysis?: ReadonlyArray<{
    readonly path: string;
    readonly symbols?: ReadonlyArray<{ readonly name: string; readonly qualified_name: string; readonly kind: string; readonly exported: boolean }>;
    readonly changes?: ReadonlyArray<{
      readonly qualified_name: string;
      readonly kind: string;
      readonly change: string;
      readonly renamed_from?: string | null;
      readonly exported?: boolean;
      readonly compatibility: "breaking" | "compatible" | "internal";
      readonly reasons?: ReadonlyArray<{ readonly code: string; readonly message: string }>;
    }>;
    readonly new_references?: ReadonlyArray<{ readonly kind: string; readonly name: string; readonly module?: string | null }>;
  }>;
  readonly status?: { readonly excerpt?: string; readonly files?: readonly string[] };
}

const text = (max: number) => ({ type: "string", maxLength: max });
const nullableText = (max: number) => ({ type: ["string", "null"], maxLength: max });
const repoPath = { type: "string", minLength: 1, maxLength: 4096 };
const paths = { type: "array", maxItems: 500, items: repoPath };

export const EVALUATE_REQUEST_SCHEMA = {
  $id: "https://comity.dev/schema/evaluate-request.json",
  type: "object",
  required: ["event", "dedupe_key", "session", "repo"],
  properties: {
    event: { enum: [...EVENTS] },
    dedupe_key: { type: "string", minLength: 1, maxLength: 256 },
    session: {
      type: "object",
      required: ["external_id", "tool"],
      properties: {
        external_id: { type: "string", minLength: 1, maxLength: 512 },
        tool: { type: "string", minLength: 1, maxLength: 64 },
        model: nullableText(256),
        parent_external_id: nullableText(512),
      },
    },
    repo: {
      type: "object",
      required: ["remote_fingerprints"],
      properties: {
        remote_fingerprints: { type: "array", minItems: 1, maxItems: 32, items: { type: "string", pattern: "^[0-9a-f]{16,128}$" } },
        branch: nullableText(1024),
        head_sha: { type: ["string", "null"], pattern: "^[0-9a-f]{40,64}$" },
      },
    },
    paths,
    prompt_excerpt: text(8000),
    plan_text: text(131072),
    shell: { type: "object", properties: { command: text(16000), paths } },
    analysis: {
      type: "array",
      maxItems: 50,
      items: {
        type: "object",
        required: ["path"],
        properties: {
          path: repoPath,
          symbols: {
            type: "array",
            maxItems: 5000,
            items: {
              type: "object",
              required: ["name", "qualified_name", "kind", "exported"],
              properties: { name: text(512), qualified_name: text(2048), kind: text(64), exported: { type: "boolean" } },
            },
          },
          changes: {
            type: "array",
            maxItems: 5000,
            items: {
              type: "object",
              required: ["qualified_name", "kind", "change", "compatibility"],
              properties: {
                qualified_name: text(2048),
                kind: text(64),
                change: text(64),
                renamed_from: nullableText(2048),
                exported: { type: "boolean" },
                compatibility: { enum: ["breaking", "compatible", "internal"] },
                reasons: { type: "array", maxItems: 64, items: { type: "object", required: ["code", "message"], properties: { code: text(128), message: text(1024) } } },
              },
            },
          },
          new_references: {
            type: "array",
            maxItems: 5000,
            items: { type: "object", required: ["kind", "name"], properties: { kind: text(64), name: text(512), module: nullableText(2048) } },
          },
        },
      },
    },
    status: { type: "object", properties: { excerpt: text(2000), files: paths } },
  },
} as const;

export interface RequestProblem {
  /** JSON pointer of the wrong field (`/session/external_id`). */
  readonly field: string;
  readonly message: string;
}

/**
 * Compiles the schema with ajv (loaded only by the server) and returns a
 * checker: the request typed, or the first wrong field.
 */
export async function loadRequestValidator(): Promise<(value: unknown) => { ok: true; request: EvaluateRequest } | { ok: false; problem: RequestProblem }> {
  const { Ajv } = await import("ajv");
  const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });
  const validate = ajv.compile(EVALUATE_REQUEST_SCHEMA);
  return (value) => {
    if (validate(value)) return { ok: true, request: value as unknown as EvaluateRequest };
    const e = validate.errors?.[0];
    if (e === undefined) return { ok: false, problem: { field: "", message: "does not match the request schema" } };
    const missing = e.keyword === "required" ? `/${String((e.params as { missingProperty?: string }).missingProperty)}` : "";
    const field = `${e.instancePath}${missing}` || "/";
    return { ok: false, problem: { field, message: e.keyword === "required" ? "is required" : (e.message ?? "is invalid") } };
  };
}
