/** What a CLI command may touch: its streams, folder and environment. Injected so commands run in tests. */
export interface CliIo {
  /** `done`: called once the chunk is written (its buffer may then be reused), as a Node stream calls it. */
  readonly stdout: { write(chunk: string | Uint8Array, done?: (error?: Error | null) => void): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether stdin is a terminal (a person, not a host, is running the command). */
  readonly stdinIsTTY?: boolean;
  /** Reads all of stdin (bounded); absent where a command takes none. */
  readonly readStdin?: () => Promise<string>;
  /** The process's own streams, for a command that speaks a protocol on them for as long as it runs (`comity mcp`). */
  readonly stdio?: { readonly stdin: import("node:stream").Readable; readonly stdout: import("node:stream").Writable };
  /**
   * Where the per-user daemon keeps `comity analyze`'s answers (`bin/comity.cjs` asked it first and it had none
   * current): the answer printed, its exit code, and the real paths it read (the folder, its repos' git folders).
   */
  readonly analyzeCache?: { store(stdout: string, code: number, roots: readonly string[]): Promise<void> };
  /** When this process's watchdog ends the hook it runs (epoch ms; `bin/comity.cjs`): absent where there is none. */
  readonly hookEndsAt?: number;
}
