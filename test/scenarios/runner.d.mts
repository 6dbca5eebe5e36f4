export interface Scenario {
  readonly file: string;
  readonly name: string;
  readonly items?: readonly string[];
  /** Why the scenario needs a server (two machines, two teams): skipped in embedded mode. */
  readonly served_only?: string;
  readonly sessions: Readonly<Record<string, { readonly host?: string }>>;
  readonly steps: readonly unknown[];
}
export interface ScenarioResult {
  readonly name: string;
  readonly file: string;
  readonly items: readonly string[];
  readonly hosts: readonly string[];
  /** Why it did not run in this mode, or null. */
  readonly skipped: string | null;
  readonly expected: number;
  readonly recalled: number;
  readonly falseAlarms: number;
  readonly misses: readonly string[];
  readonly alarms: readonly string[];
  /** Edits whose dry run (the MCP server's check_edit) was compared with the PreToolUse hook's verdict, and agreed. */
  readonly checks: { readonly total: number; readonly agreed: number };
  readonly transcript: readonly unknown[];
}
export const BIN: string;
export const CASES_DIR: string;
export const NATIVE_CLIENT: string;
export function snapshotsReused(): number;
export function loadScenarios(dir?: string): Scenario[];
export function runScenario(
  scenario: Scenario,
  options?: {
    mode?: "served" | "embedded";
    db?: string;
    /** Servers already running on `db` (replicas behind a balancer): no server is started. */
    serveUrl?: string;
    /** Appended to each of the scenario's team names (scenarios sharing one database). */
    teamSuffix?: string;
    keep?: boolean;
    bin?: string;
    inProcess?: boolean;
    viaDaemon?: boolean;
    viaHttp?: boolean;
    viaNative?: boolean;
    daemon?: boolean;
    /** Compare each edit's dry run (check_edit) with the PreToolUse hook's verdict (default true). */
    checkEdits?: boolean;
  },
): Promise<ScenarioResult>;
export function formatTable(results: readonly ScenarioResult[]): string;
