import * as path from "node:path";
import { hookEntries, isComityHookEntry } from "../init/host-configs.js";

/** A line of the doctor's report, as `run-doctor.ts`'s DoctorCheck (not imported: run-doctor imports this module). */
interface DoctorCheck {
  readonly id: string;
  readonly status: "ok" | "warn" | "fail" | "skip";
  readonly title: string;
  readonly detail: string;
}

/** Where Claude Code reads its machine's managed settings (set by an administrator), by platform. */
export function claudeManagedSettingsPath(platform: NodeJS.Platform = process.platform): string {
  if (platform === "darwin") return "/Library/Application Support/ClaudeCode/managed-settings.json";
  if (platform === "win32") return "C:\\Program Files\\ClaudeCode\\managed-settings.json";
  return "/etc/claude-code/managed-settings.json";
}

/** One Claude Code settings file as read: its path and parsed document (null where absent or not JSON). */
export interface ClaudeSettingsFile {
  readonly file: string;
  readonly doc: unknown;
}

/**
 * Whether Claude Code lets Comity's hooks run as written, from its settings (pure): hooks switched off
 * (`disableAllHooks`, in any file), only the administrator's own hooks run (`allowManagedHooksOnly`, managed),
 * Comity's http hooks dropped (their URL outside `allowedHttpHookUrls`) or, for hooks that forward variables in their
 * headers (those earlier builds of `init --http` wrote), sent with them blanked (outside `httpHookAllowedEnvVars`).
 * Null where Claude Code's settings say nothing of these.
 */
export function claudePolicyCheck(managed: ClaudeSettingsFile, others: readonly ClaudeSettingsFile[]): DoctorCheck | null {
  const title = "Claude Code's settings allow Comity's hooks";
  const id = "hooks.claude_code.policy";
  const field = (doc: unknown, key: string): unknown => (doc !== null && typeof doc === "object" && !Array.isArray(doc) ? (doc as Record<string, unknown>)[key] : undefined);
  for (const f of [managed, ...others]) {
    if (field(f.doc, "disableAllHooks") === true) return { id, status: "fail", title, detail: `disableAllHooks is set in ${f.file}: Claude Code runs no hook, Comity's included` };
  }
  if (field(managed.doc, "allowManagedHooksOnly") === true) {
    return {
      id,
      status: "fail",
      title,
      detail: `allowManagedHooksOnly is set in ${managed.file}: Claude Code runs only the administrator's hooks, so the ones comity init wrote are skipped; ask for Comity's hooks in the managed settings`,
    };
  }
  const httpUrls = others.flatMap((f) => comityHttpHookUrls(f.doc).map((url) => ({ file: f.file, url })));
  if (httpUrls.length === 0) return null;
  const allowed = field(managed.doc, "allowedHttpHookUrls");
  if (Array.isArray(allowed)) {
    const blocked = httpUrls.filter((h) => !allowed.some((p) => typeof p === "string" && urlMatches(p, h.url)));
    if (blocked.length > 0) {
      const first = blocked[0] as { file: string; url: string };
      return {
        id,
        status: "fail",
        title,
        detail: `${first.url} (in ${first.file}) matches no pattern of allowedHttpHookUrls in ${managed.file}: Claude Code drops Comity's http hooks; ask for http://127.0.0.1:* there, or use command hooks (comity init without --http)`,
      };
    }
  }
  const envAllowed = field(managed.doc, "httpHookAllowedEnvVars");
  // (the hooks init writes now forward none: the daemon takes the session's from its state)
  const forwarded = [...new Set(others.flatMap((f) => comityHttpHookEnvVars(f.doc)))];
  if (Array.isArray(envAllowed) && forwarded.length > 0) {
    const blanked = forwarded.filter((name) => !envAllowed.includes(name));
    const matters = blanked.filter((name) => name === "COMITY_API_URL" || name === "COMITY_TOKEN" || name === "COMITY_AGENT_NAME");
    if (matters.length > 0) {
      return {
        id,
        status: "warn",
        title,
        detail: `httpHookAllowedEnvVars in ${managed.file} leaves out ${matters.join(", ")}: Claude Code sends them blank in Comity's http hooks (the daemon then uses its own login and this machine's name)`,
      };
    }
  }
  return { id, status: "ok", title, detail: `Comity's http hooks are allowed by ${path.basename(managed.file)}` };
}

/** Comity's http hooks (`comity init --http`) in a settings document. */
function comityHttpHooks(doc: unknown): unknown[] {
  return hookEntries(doc).filter((e) => isComityHookEntry(e) && (e as { type?: unknown }).type === "http");
}

/** The URLs of Comity's http hooks in a settings document. */
export function comityHttpHookUrls(doc: unknown): string[] {
  return comityHttpHooks(doc).map((e) => String((e as { url: unknown }).url));
}

/** The variables Comity's http hooks in a settings document ask Claude Code to fill into their headers. */
function comityHttpHookEnvVars(doc: unknown): string[] {
  return comityHttpHooks(doc).flatMap((e) => {
    const names = (e as { allowedEnvVars?: unknown }).allowedEnvVars;
    return Array.isArray(names) ? names.filter((n): n is string => typeof n === "string") : [];
  });
}

/** Whether a URL matches an `allowedHttpHookUrls` pattern: `*` stands for any run of characters, the rest is literal. */
export function urlMatches(pattern: string, url: string): boolean {
  const re = new RegExp(
    `^${pattern
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, "\\$&"))
      .join(".*")}$`,
  );
  return re.test(url);
}
