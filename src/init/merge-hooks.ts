import { ComityError } from "../errors/comity-error.js";
import { isComityHookEntry, type HookTable } from "./host-configs.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * A settings document with Comity's hooks put in: every hook that runs
 * `comity hook` is taken out (an older Comity's included, so an update
 * replaces it), a group left empty by that goes, then Comity's groups are
 * appended per event. The user's other hooks, other events and other
 * settings keep their content and order. Pure: the same input gives the same
 * output, so a second run changes nothing.
 */
export function mergeHooks(settings: unknown, wanted: HookTable): Record<string, unknown> {
  if (settings !== undefined && (settings === null || typeof settings !== "object" || Array.isArray(settings))) {
    throw new ComityError("INVALID_ARGUMENT", "the settings file does not hold a JSON object");
  }
  const doc: Record<string, unknown> = { ...(settings as Record<string, unknown> | undefined) };
  const hooksValue = doc["hooks"];
  if (hooksValue !== undefined && (hooksValue === null || typeof hooksValue !== "object" || Array.isArray(hooksValue))) {
    throw new ComityError("INVALID_ARGUMENT", `"hooks" is not an object`);
  }
  const hooks: Record<string, unknown> = {};
  for (const [event, groups] of Object.entries((hooksValue as Record<string, unknown> | undefined) ?? {})) {
    if (!Array.isArray(groups) && event in wanted) throw new ComityError("INVALID_ARGUMENT", `"hooks.${event}" is not a list`);
    const kept = withoutComity(groups);
    if (kept.length > 0 || !(event in wanted)) hooks[event] = Array.isArray(groups) ? kept : groups;
  }
  for (const [event, groups] of Object.entries(wanted)) {
    const existing = Array.isArray(hooks[event]) ? (hooks[event] as Json[]) : [];
    hooks[event] = [...existing, ...(groups as unknown as Json[])];
  }
  doc["hooks"] = hooks;
  return doc;
}

/** The groups of one event without Comity's hooks (other hooks in a group stay). */
function withoutComity(groups: unknown): Json[] {
  if (!Array.isArray(groups)) return [];
  const out: Json[] = [];
  for (const g of groups as Json[]) {
    // A flat entry (Cursor's and Copilot's shape) that runs Comity goes as a whole.
    if (isComityHookEntry(g)) continue;
    if (g === null || typeof g !== "object" || Array.isArray(g) || !Array.isArray(g["hooks"])) {
      out.push(g);
      continue;
    }
    const inner = g["hooks"].filter((h) => !isComityHookEntry(h));
    if (inner.length === g["hooks"].length) out.push(g);
    else if (inner.length > 0) out.push({ ...g, hooks: inner });
  }
  return out;
}

/** Whether a settings document already holds exactly Comity's hooks (installed and current). */
export function hooksAreCurrent(settings: unknown, wanted: HookTable): boolean {
  try {
    return JSON.stringify(mergeHooks(settings, wanted)) === JSON.stringify(settings);
  } catch {
    return false;
  }
}
