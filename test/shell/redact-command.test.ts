import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactCommand } from "../../src/shell/redact-command.js";

describe("redactCommand: what of a shell command may leave the machine", () => {
  it("elides here-document bodies, which are file contents, and keeps what the command does", () => {
    expect(redactCommand("cat <<'EOF' > notes.md\nsecret line 1\nline 2\nEOF\necho done")).toBe("cat <<'EOF' > notes.md\n… 2 lines …\nEOF\necho done");
    expect(redactCommand("cat <<-END | tee a\n\tbody\n\tEND\nls")).toBe("cat <<-END | tee a\n… 1 line …\n\tEND\nls");
    expect(redactCommand('python - <<"PY"\nprint(1)\nPY')).toBe('python - <<"PY"\n… 1 line …\nPY');
    // Two on one line: each body in turn. A here-string has none.
    expect(redactCommand("paste <(cat <<A\na1\nA\n) <(cat <<B\nb1\nb2\nB\n)")).toBe("paste <(cat <<A\n… 1 line …\nA\n) <(cat <<B\n… 2 lines …\nB\n)");
    expect(redactCommand('grep foo <<< "bar"')).toBe('grep foo <<< "bar"');
  });

  it("masks the values of secret-named assignments and flags, and credentials in headers", () => {
    expect(redactCommand("API_TOKEN=abc123 curl -H 'Authorization: Bearer xyzxyzxyz12' https://x")).toBe("API_TOKEN=*** curl -H 'Authorization: Bearer ***' https://x");
    expect(redactCommand('export GITHUB_TOKEN="ghp_123"; mysql --password=hunter2 -u root --host db')).toBe("export GITHUB_TOKEN=***; mysql --password=*** -u root --host db");
    expect(redactCommand("tool --api-key sk-live-123 --verbose")).toBe("tool --api-key *** --verbose");
    expect(redactCommand("AWS_SECRET_ACCESS_KEY='a/b+c' PATH=/x make")).toBe("AWS_SECRET_ACCESS_KEY=*** PATH=/x make");
    // Not a secret's value: kept.
    expect(redactCommand("git commit -m 'use --token flag'")).toBe("git commit -m 'use --token flag'");
    expect(redactCommand("NODE_ENV=test npm run build -- --watch")).toBe("NODE_ENV=test npm run build -- --watch");
  });

  it("never lets a secret value through, wherever the assignment stands", () => {
    fc.assert(
      fc.property(fc.constantFrom("TOKEN", "DB_PASSWORD", "secret", "API_KEY"), fc.stringMatching(/^[A-Za-z0-9]{12,24}$/), fc.constantFrom("", "sudo ", "a && ", "(", "x; "), (name, value, before) => {
        expect(redactCommand(`${before}${name}=${value} run`)).not.toContain(value);
        expect(redactCommand(`${before}tool --${name.toLowerCase().replace(/_/g, "-")} ${value}`)).not.toContain(value);
      }),
    );
  });
});
