export interface Scenario {
  readonly file: string;
  readonly name: string;
  readonly items?: readonly string[];
  readonly sessions: Readonly<Record<string, { readonly host?: string }>>;
  readonly steps: readonly unknown[];
}
export interface ScenarioResult {
  readonly name: string;
  readonly file: string;
  readonly items: readonly string[];
  readonly hosts: readonly string[];
  readonly expected: number;
  readonly recalled: number;
  readonly falseAlarms: number;
  readonly misses: readonly string[];
  readonly alarms: readonly string[];
  readonly transcript: readonly unknown[];
}
export const BIN: string;
export const CASES_DIR: string;
export function loadScenarios(dir?: string): Scenario[];
export function runScenario(scenario: Scenario, options?: { db?: string; keep?: boolean }): Promise<ScenarioResult>;
export function formatTable(results: readonly ScenarioResult[]): string;
