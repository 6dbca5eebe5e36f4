/** What a CLI command may touch: its streams, folder and environment. Injected so commands run in tests. */
export interface CliIo {
  readonly stdout: { write(chunk: string | Uint8Array): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether stdin is a terminal (a person, not a host, is running the command). */
  readonly stdinIsTTY?: boolean;
  /** Reads all of stdin (bounded); absent where a command takes none. */
  readonly readStdin?: () => Promise<string>;
}
