/**
 * The wire format of coordination, defined once: the body of
 * `POST /v1/hooks/evaluate` as the hook builds it (`src/hook/build-request.ts`,
 * `docs/hooks.md`) and the answer the core gives
 * (`src/coordination/evaluate-event.ts`), in process or over HTTP.
 * Fields the core does not use are accepted and ignored, so a newer hook
 * keeps working against an older server; the fields it uses are checked.
 */
export const EVENTS = ["session_start", "prompt", "plan", "pre_edit", "pre_shell", "post_edit", "stop", "session_end", "pre_push"] as const;
export type EventName = (typeof EVENTS)[number];

/** The team policies (`docs/coordination.md`, "Policies"); `first_contact` is the default. */
export const POLICIES = ["first_contact", "advisory", "block"] as const;
export type TeamPolicy = (typeof POLICIES)[number];

/** A stored or given policy as one of the three (anything unknown is the default, `first_contact`). */
export function asPolicy(value: unknown): TeamPolicy {
  return (POLICIES as readonly unknown[]).includes(value) ? (value as TeamPolicy) : "first_contact";
}

/** The collision kinds (`docs/coordination.md`, "Collisions"). */
export const CONFLICT_KINDS = ["edit_conflict", "file_overlap", "symbol_overlap", "breaking_change", "cross_repo_breaking", "plan_overlap", "reserved", "reserved_shared"] as const;
export type ConflictKind = (typeof CONFLICT_KINDS)[number];

/** A module a file imports a name from (`*` for a whole module: a namespace import, `require`, `import()`): what a session uses. */
export interface UseRecord {
  readonly path: string;
  readonly name: string;
  readonly module: string | null;
}

export interface EvaluateRequest {
  readonly event: EventName;
  readonly dedupe_key: string;
  /**
   * Evaluated and answered, then undone: what this event would be told, with nothing recorded (the MCP server's
   * `check_edit`). `pre_edit` and `pre_shell` only.
   */
  readonly dry_run?: boolean;
  readonly session: {
    readonly external_id: string;
    readonly tool: string;
    readonly model?: string | null;
    readonly parent_external_id?: string | null;
    /** Who runs it, for people: `COMITY_AGENT_NAME`, else the machine's host name. */
    readonly label?: string | null;
    readonly surface?: string;
  };
  /** Who sent it (not used by the core). */
  readonly client?: { readonly cli_version: string; readonly os: string; readonly tool_version: string | null; readonly machine_id_hash: string };
  readonly repo: {
    readonly remote_fingerprints: readonly string[];
    readonly branch?: string | null;
    readonly head_sha?: string | null;
    /** The session's folder relative to the repo root (`.` at the root). */
    readonly cwd_path?: string | null;
    /**
     * The working tree's own folder, as a person finds it: relative to the home folder (`~/work/vite-feature`), else
     * its name. Two worktrees of one repo are two folders, where `cwd_path` says `.` for both.
     */
    readonly worktree?: string | null;
    readonly base_sha?: string | null;
    readonly worktree_hash?: string | null;
    /** session_start: the repo's workspace packages. */
    readonly packages?: ReadonlyArray<{ readonly name: string; readonly path: string; readonly ecosystem: string; readonly version?: string | null }>;
    readonly packages_truncated?: boolean;
    /** session_start: the packages its manifests depend on, as package keys (`npm:@acme/lib`, `python:acme-lib`). */
    readonly dependencies?: readonly string[];
  };
  readonly prompt_excerpt?: string;
  readonly shell?: { readonly command: string; readonly paths: readonly string[]; readonly unresolved: number };
  /** Some changes were left out of `analysis` (breaking ones are kept first). */
  readonly analysis_truncated?: boolean;
  readonly paths?: readonly string[];
  /** pre_edit / pre_shell: what the files about to change import (as they are, and as the edit writes them). */
  readonly uses?: readonly UseRecord[];
  readonly plan_text?: string;
  readonly analysis?: ReadonlyArray<{
    readonly path: string;
    readonly language?: string | null;
    /** The workspace package the file belongs to (its innermost manifest), when one does. */
    readonly package?: { readonly name: string; readonly ecosystem: string; readonly path: string } | null;
    readonly symbols?: ReadonlyArray<{ readonly name: string; readonly qualified_name: string; readonly kind: string; readonly exported: boolean }>;
    readonly changes?: ReadonlyArray<{
      readonly qualified_name: string;
      readonly kind: string;
      readonly change: string;
      readonly renamed_from?: string | null;
      readonly exported?: boolean;
      readonly compatibility: "breaking" | "compatible" | "internal";
      readonly reasons?: ReadonlyArray<{ readonly code: string; readonly message: string }>;
      /** The names it can be imported under from its package's entry (`[]`: not reachable from it). */
      readonly public_names?: readonly string[] | null;
      /** It is its module's default export: `import x from "./m"` uses it. */
      readonly default_export?: boolean;
      /** Its signature before and after, as names and parameter names (`parseConfig(path, strict)`), for people. */
      readonly signature_before?: string | null;
      readonly signature_after?: string | null;
      /**
       * The namespace it is filed under where that is not its file's package: a route a server's code declares is
       * part of the HTTP API (`{ name: "http", ecosystem: "openapi" }`).
       */
      readonly package?: { readonly name: string; readonly ecosystem: string };
    }>;
    readonly new_references?: ReadonlyArray<{ readonly kind: string; readonly name: string; readonly module?: string | null }>;
    /** Every reference of the file as it is now (names and modules only): what the session uses. */
    readonly references?: ReadonlyArray<{ readonly kind: string; readonly name: string; readonly module?: string | null }>;
    /** The file does not parse now: no symbol of it counts as removed, and its symbols are not replaced. */
    readonly parse_error?: boolean;
  }>;
  readonly status?: { readonly excerpt?: string; readonly files?: readonly string[] };
  /**
   * pre_edit, pre_shell, post_edit: for each file, the lines it changes (about to, or did), against the file's base
   * (its blob at HEAD, by id; null for a new file): `[first, last]` line ranges of the base, 1-based and inclusive,
   * an insertion after line n being `[n + 1, n]`. `ranges: null`: not known (a whole-file write, a shell command).
   */
  readonly edits?: readonly EditRanges[];
}

/** What one file's edit touches: its base blob and the base's line ranges (see `EvaluateRequest.edits`). */
export interface EditRanges {
  readonly path: string;
  readonly base: string | null;
  readonly ranges: ReadonlyArray<readonly [number, number]> | null;
}

const text = (max: number) => ({ type: "string", maxLength: max });
const nullableText = (max: number) => ({ type: ["string", "null"], maxLength: max });
/** A name shown to other agents (a label, a branch): one line, no control characters (C0, DEL, C1, line separators). */
const oneLineText = (max: number) => ({ type: ["string", "null"], maxLength: max, pattern: "^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$" });
const repoPath = { type: "string", minLength: 1, maxLength: 4096 };
const paths = { type: "array", maxItems: 500, items: repoPath };
const references = {
  type: "array",
  maxItems: 5000,
  items: { type: "object", required: ["kind", "name"], properties: { kind: text(64), name: text(512), module: nullableText(2048) } },
} as const;

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
        label: oneLineText(128),
      },
    },
    repo: {
      type: "object",
      required: ["remote_fingerprints"],
      properties: {
        remote_fingerprints: { type: "array", minItems: 1, maxItems: 32, items: { type: "string", pattern: "^[0-9a-f]{16,128}$" } },
        branch: oneLineText(1024),
        head_sha: { type: ["string", "null"], pattern: "^[0-9a-f]{40,64}$" },
        cwd_path: nullableText(4096),
        worktree: oneLineText(1024),
        packages: { type: "array", maxItems: 200, items: { type: "object", required: ["name", "path", "ecosystem"], properties: { name: text(512), path: text(4096), ecosystem: text(32) } } },
        dependencies: { type: "array", maxItems: 500, items: text(600) },
      },
    },
    paths,
    uses: { type: "array", maxItems: 5000, items: { type: "object", required: ["path", "name"], properties: { path: repoPath, name: text(512), module: nullableText(2048) } } },
    prompt_excerpt: text(8000),
    plan_text: text(131072),
    shell: { type: "object", properties: { command: text(16000), paths } },
    analysis_truncated: { type: "boolean" },
    dry_run: { type: "boolean" },
    analysis: {
      type: "array",
      maxItems: 50,
      items: {
        type: "object",
        required: ["path"],
        properties: {
          path: repoPath,
          package: { type: ["object", "null"], required: ["name", "ecosystem", "path"], properties: { name: text(512), ecosystem: text(32), path: text(4096) } },
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
                public_names: { type: ["array", "null"], maxItems: 64, items: text(2048) },
                default_export: { type: "boolean" },
                signature_before: nullableText(512),
                signature_after: nullableText(512),
                package: { type: "object", required: ["name", "ecosystem"], properties: { name: text(512), ecosystem: text(32) } },
              },
            },
          },
          new_references: references,
          references,
          parse_error: { type: "boolean" },
        },
      },
    },
    status: { type: "object", properties: { excerpt: text(2000), files: paths } },
    edits: {
      type: "array",
      maxItems: 500,
      items: {
        type: "object",
        required: ["path", "base", "ranges"],
        properties: {
          path: repoPath,
          base: { type: ["string", "null"], pattern: "^[0-9a-f]{40,64}$" },
          ranges: { type: ["array", "null"], maxItems: 1000, items: { type: "array", minItems: 2, maxItems: 2, items: { type: "integer", minimum: 0 } } },
        },
      },
    },
  },
} as const;

/**
 * The most work one request may ask for: symbol changes across its analysed files, and the symbols, references
 * and uses it stores. The hook never sends more (it keeps breaking changes first and says `analysis_truncated`);
 * the server answers 413 to a request over any of them.
 */
export const REQUEST_LIMITS = { changes: 1000, symbols: 20_000, references: 20_000, uses: 5000 } as const;

/** What a schema-valid request asks beyond {@link REQUEST_LIMITS}, or null. */
export function overLimits(request: EvaluateRequest): string | null {
  const analysis = request.analysis ?? [];
  const count = (f: (a: NonNullable<EvaluateRequest["analysis"]>[number]) => number) => analysis.reduce((n, a) => n + f(a), 0);
  const asked = {
    changes: count((a) => a.changes?.length ?? 0),
    symbols: count((a) => a.symbols?.length ?? 0),
    references: count((a) => (a.references?.length ?? 0) + (a.new_references?.length ?? 0)),
    uses: request.uses?.length ?? 0,
  };
  for (const key of Object.keys(REQUEST_LIMITS) as Array<keyof typeof REQUEST_LIMITS>) {
    if (asked[key] > REQUEST_LIMITS[key]) return `${asked[key]} ${key} in one request (at most ${REQUEST_LIMITS[key]})`;
  }
  return null;
}

export interface RequestProblem {
  /** JSON pointer of the wrong field (`/session/external_id`). */
  readonly field: string;
  readonly message: string;
}

/**
 * Compiles the schema with ajv (loaded only by the server) and returns a
 * checker: the request typed, or the first wrong field.
 */
export async function loadRequestValidator(): Promise<(value: unknown) => { ok: true; request: EvaluateRequest } | { ok: false; problem: RequestProblem }>;
/** The same for another of the API's request schemas (`MESSAGE_REQUEST_SCHEMA`). */
export async function loadRequestValidator<T>(schema: object): Promise<(value: unknown) => { ok: true; request: T } | { ok: false; problem: RequestProblem }>;
export async function loadRequestValidator(schema: object = EVALUATE_REQUEST_SCHEMA): Promise<(value: unknown) => { ok: true; request: unknown } | { ok: false; problem: RequestProblem }> {
  const { Ajv } = await import("ajv");
  const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });
  const validate = ajv.compile(schema);
  return (value) => {
    // PostgreSQL cannot store a NUL in text; no field needs one: refused the same on every storage.
    const nul = nulAt(value, "");
    if (nul !== null) return { ok: false, problem: { field: nul || "/", message: "contains a NUL character (\\u0000)" } };
    if (validate(value)) return { ok: true, request: value };
    const e = validate.errors?.[0];
    if (e === undefined) return { ok: false, problem: { field: "", message: "does not match the request schema" } };
    const missing = e.keyword === "required" ? `/${String((e.params as { missingProperty?: string }).missingProperty)}` : "";
    const field = `${e.instancePath}${missing}` || "/";
    return { ok: false, problem: { field, message: e.keyword === "required" ? "is required" : (e.message ?? "is invalid") } };
  };
}

export interface ConflictRef {
  readonly number: number;
  readonly ref: string;
  readonly kind: ConflictKind;
  readonly severity: "warn" | "block";
}

/** The answer of `POST /v1/hooks/evaluate` (`docs/hooks.md`, "The request and the answer"). */
export interface EvaluateAnswer {
  /** `block`: the tool call is denied, `reason` holding the whole warning; `warn`: context to show. */
  readonly decision: "allow" | "warn" | "block";
  readonly reason: string | null;
  readonly inject_context: string | null;
  readonly conflicts: readonly ConflictRef[];
  readonly intent: { readonly number: number; readonly ref: string; readonly status: "active" } | null;
  readonly session_id: string;
  readonly index_version: number;
}

/** The JSON pointer of the first string (value or key) holding a NUL character, or null. */
function nulAt(value: unknown, pointer: string): string | null {
  if (typeof value === "string") return value.includes("\u0000") ? pointer : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = nulAt(value[i], `${pointer}/${i}`);
      if (at !== null) return at;
    }
    return null;
  }
  if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      const here = `${pointer}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      if (k.includes("\u0000")) return here;
      const at = nulAt(v, here);
      if (at !== null) return at;
    }
  }
  return null;
}

/**
 * `POST /v1/messages` (`comity message`): a few words for another agent of the repo (of the team, when no session of
 * the repo matches, or the sender is in no repo), delivered to it as context at its next event that takes context, once. `to`: its session id (or the first characters of it, 4 at least) or its
 * label. `from`: who sends it, as its hooks name it (its label and working tree find its own session, to reply to).
 */
export interface MessageRequest {
  readonly repo: { readonly remote_fingerprints: readonly string[] };
  readonly to: string;
  readonly text: string;
  readonly from: { readonly label: string; readonly worktree?: string | null; readonly branch?: string | null };
}

/** What `POST /v1/messages` answers: the session the message waits for. */
export interface MessageAnswer {
  readonly to: { readonly session: string; readonly description: string };
}

/** `GET /v1/who?repo=FINGERPRINT&path=PATH` (`comity who`): the active sessions that hold or changed a file. */
export interface WhoAnswer {
  readonly path: string;
  readonly sessions: ReadonlyArray<{
    /** Its short id: what `comity message` takes. */
    readonly session: string;
    readonly description: string;
    readonly holds: boolean;
    readonly changed: boolean;
    /** Where in the file, when known (`10-14, after 20`). */
    readonly lines: string | null;
    readonly since: number;
    /** Its last status (what it said at its last turn's end). */
    readonly status: string | null;
    /** Its reservation of the file, when it holds one (`RSV-3 src/billing/, exclusive, for 18 more minutes: ...`). */
    readonly reserved?: string | null;
  }>;
}

export const MESSAGE_REQUEST_SCHEMA = {
  $id: "https://comity.dev/schema/message-request.json",
  type: "object",
  required: ["repo", "to", "text", "from"],
  properties: {
    repo: { type: "object", required: ["remote_fingerprints"], properties: { remote_fingerprints: { type: "array", maxItems: 32, items: { type: "string", pattern: "^[0-9a-f]{16,128}$" } } } },
    to: { type: "string", minLength: 1, maxLength: 512 },
    text: { type: "string", minLength: 1, maxLength: 2000 },
    from: { type: "object", required: ["label"], properties: { label: { type: "string", maxLength: 128 }, worktree: oneLineText(1024), branch: oneLineText(1024) } },
  },
} as const;
