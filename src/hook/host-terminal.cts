import fs = require("node:fs");

/**
 * The terminal a hook's host runs in (`pts/3`), found up the hook's process tree: hosts start their hooks without a
 * controlling terminal (Claude Code detaches them), but the host itself has one. Two agents on one machine without a
 * terminal multiplexer are told apart by it. Null where no process up the tree has one (a host run headless, a
 * daemon) or the platform has no `/proc`.
 *
 * CommonJS, loaded by `bin/comity.cjs` for every hook: it loads nothing else.
 */
function hostTerminal(start: number, readStat: (pid: number) => string = readProcStat): string | null {
  let pid = start;
  for (let depth = 0; depth < 8 && pid > 1; depth++) {
    const stat = procStat(pid, readStat);
    if (stat === null) return null;
    if (Number.isInteger(stat.tty) && stat.tty !== 0) return terminalName(stat.tty);
    if (!Number.isInteger(stat.ppid)) return null;
    pid = stat.ppid;
  }
  return null;
}

function readProcStat(pid: number): string {
  return fs.readFileSync(`/proc/${pid}/stat`, "utf8");
}

/**
 * A process's state letter, parent and controlling terminal from `/proc/PID/stat` (`pid (comm) state ppid pgrp
 * session tty_nr ...`; the command name may hold spaces and parentheses, so fields are read after its last `)`).
 * Null where it cannot be read (no such process, no `/proc`).
 */
function procStat(pid: number, readStat: (pid: number) => string = readProcStat): { state: string; ppid: number; tty: number } | null {
  let stat: string;
  try {
    stat = readStat(pid);
  } catch {
    return null;
  }
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", ppid: Number(fields[1]), tty: Number(fields[4]) };
}

/** A `tty_nr` as a person knows it: `pts/N` for a pseudo-terminal (majors 136-143), else `tty MAJOR:MINOR`. */
function terminalName(ttyNr: number): string {
  const major = (ttyNr >> 8) & 0xfff;
  const minor = (ttyNr & 0xff) | ((ttyNr >> 12) & 0xfff00);
  return major >= 136 && major <= 143 ? `pts/${(major - 136) * 256 + minor}` : `tty ${major}:${minor}`;
}

export = { hostTerminal, procStat, terminalName };
