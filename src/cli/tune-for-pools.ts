import { setFlagsFromString } from "node:v8";

/**
 * V8's interrupt budget for a command that runs a pool of parse workers: about four times its default (67,584
 * bytecodes), so that a function runs longer before V8 optimises it. Over many files the extraction's large functions
 * were otherwise optimised before they had met the rarer shapes of code (a destructuring export, a constructor's
 * parameter properties, `declare global`), thrown away at the first one, and compiled again, on the cores the work
 * runs on. The flag is the process's and stays set, so the CLI sets it, in a process of its own that has many files
 * to read; the library only says when (`beforePool`).
 */
const POOL_INTERRUPT_BUDGET = 300_000;

export function tuneForPools(): void {
  setFlagsFromString(`--interrupt-budget=${POOL_INTERRUPT_BUDGET}`);
}
