/** Names that say their value is a secret: an assignment's variable, a long flag. */
const SECRET_NAME = /(token|secret|passw(?:or)?d|passphrase|pwd|credential|api[-_]?key|private[-_]?key|access[-_]?key|auth[-_]?key|_key$|^key$)/i;

/** A shell word's value: quoted (either quote) or bare. */
const VALUE = String.raw`(?:"(?:[^"\\]|\\.)*"|'[^']*'|[^\s;&|]+)`;

/**
 * A shell command as it may leave the machine (`shell.command` of `pre_shell`): here-document bodies, which are file
 * contents, are elided (`<<EOF … 12 lines … EOF`), and the values of assignments and long flags whose name says
 * token, key, secret or password, and of `Bearer`/`Basic` credentials, are masked (`GITHUB_TOKEN=***`,
 * `--password=***`). The rest is kept as typed: it says what the command does to which files. Pure.
 *
 * @example
 * redactCommand("API_TOKEN=abc curl -H 'Authorization: Bearer xyz' x"); // "API_TOKEN=*** curl -H 'Authorization: Bearer ***' x"
 */
export function redactCommand(command: string): string {
  return maskSecrets(elideHeredocs(command));
}

/** Each here-document's body replaced by how many lines it had (its delimiter line kept). */
export function elideHeredocs(command: string): string {
  const lines = command.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    out.push(line);
    // The heredocs this line opens, in order (`<<<` is a here-string: no body).
    const opened = [...line.matchAll(/(?<!<)<<(-?)[ \t]*(["']?)([A-Za-z_][\w.-]*)\2/g)].filter((m) => line[(m.index ?? 0) + 2] !== "<");
    for (const m of opened) {
      const tabs = m[1] === "-";
      const delimiter = m[3] as string;
      let j = i + 1;
      while (j < lines.length && (tabs ? (lines[j] as string).replace(/^\t+/, "") : lines[j]) !== delimiter) j++;
      const body = j - (i + 1);
      if (body > 0) out.push(`… ${body} line${body === 1 ? "" : "s"} …`);
      if (j < lines.length) out.push(lines[j] as string);
      i = j;
    }
  }
  return out.join("\n");
}

/** The values of secret-named assignments and long flags, and of Bearer/Basic credentials, as `***`. */
export function maskSecrets(command: string): string {
  return command
    .replace(new RegExp(String.raw`(^|[\s;&|(])([A-Za-z_][\w]*)=(${VALUE})`, "g"), (all, before: string, name: string) => (SECRET_NAME.test(name) ? `${before}${name}=***` : all))
    .replace(new RegExp(String.raw`(^|\s)(--?[A-Za-z][\w-]*)(=|\s+)(${VALUE})`, "g"), (all, before: string, flag: string, sep: string, value: string) =>
      SECRET_NAME.test(flag.replace(/^-+/, "")) && !value.startsWith("-") ? `${before}${flag}${sep}***` : all,
    )
    .replace(/\b(Bearer|Basic|token)\s+([A-Za-z0-9._~+/=-]{8,})/g, "$1 ***");
}
