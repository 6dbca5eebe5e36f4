import type protobuf from "protobufjs";
import { protobufLib } from "./parsers.js";
import { diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { reason, type ChangeReason } from "../symbols/change-reason.js";
import { CODE, codeMask } from "../symbols/code-mask.js";
import type { SymbolChange } from "../symbols/compare-symbols.js";
import type { SymbolKind, SymbolRecord } from "../symbols/types.js";
import { type ContractEntry, contractSymbols, type HashText, rangeOf } from "./contract-symbol.js";
import { lineIndex } from "./line-index.js";

/** The file options whose change moves generated code (buf's `FILE_SAME_*` rules of the FILE category). */
const FILE_OPTIONS = [
  "go_package",
  "java_package",
  "java_outer_classname",
  "java_multiple_files",
  "java_string_check_utf8",
  "csharp_namespace",
  "objc_class_prefix",
  "php_namespace",
  "php_metadata_namespace",
  "php_class_prefix",
  "ruby_package",
  "swift_prefix",
  "optimize_for",
  "cc_generic_services",
  "java_generic_services",
  "py_generic_services",
  "cc_enable_arenas",
];
/** At most this many definitions are read from one file. */
const MAX_ENTRIES = 20_000;

interface FieldFacts {
  readonly name: string;
  readonly number: number;
  readonly type: string;
  readonly cardinality: string;
  readonly oneof: string | null;
  readonly jsonName: string | null;
  readonly defaultValue: string | null;
  readonly jstype: string | null;
  readonly ctype: string | null;
}

interface MessageFacts {
  readonly fields: readonly FieldFacts[];
  readonly reserved: readonly string[];
  readonly oneofs: readonly string[];
}

interface ProtoFacts {
  readonly package: string;
  readonly syntax: string;
  readonly options: Readonly<Record<string, string>>;
  /** By name relative to the package (`Order`, `Order.Line`). */
  readonly messages: ReadonlyMap<string, MessageFacts>;
  readonly enums: ReadonlyMap<string, { readonly values: ReadonlyMap<string, number>; readonly reserved: readonly string[] }>;
  readonly services: ReadonlyMap<
    string,
    ReadonlyMap<string, { readonly request: string; readonly response: string; readonly clientStreaming: boolean; readonly serverStreaming: boolean; readonly idempotency: string }>
  >;
}

/** The last few files read, by text: reading and comparing one edit's two versions parse each once. */
const read = new Map<string, ProtoFacts | Diagnostic>();

/** The file, parsed by protobufjs (names kept as written); a diagnostic where it does not parse. */
function factsOf(path: string, text: string): ProtoFacts | Diagnostic {
  const kept = read.get(text);
  if (kept !== undefined) {
    keepRead(text, kept);
    return "messages" in kept ? kept : { ...kept, path };
  }
  const f = factsOnce(path, text);
  keepRead(text, f);
  return f;
}

/** Kept as the most recently used: what goes first is the one used longest ago. */
function keepRead(text: string, f: ProtoFacts | Diagnostic): void {
  read.delete(text);
  read.set(text, f);
  if (read.size > 4) read.delete(read.keys().next().value as string);
}

/** What comparing a file needs of it, as JSON data (what a cache keeps beside its symbols); null where it does not parse. */
export function protobufFactsData(text: string): unknown {
  const f = factsOf("", text);
  if (!("messages" in f)) return null;
  return {
    ...f,
    messages: [...f.messages],
    enums: [...f.enums].map(([name, e]) => [name, { ...e, values: [...e.values] }]),
    services: [...f.services].map(([name, rpcs]) => [name, [...rpcs]]),
  };
}

/** A version's facts kept from an earlier read ({@link protobufFactsData}): comparing it does not parse its text again. */
export function adoptProtobufFacts(text: string, data: unknown): void {
  const kept = read.get(text);
  if (kept !== undefined) {
    keepRead(text, kept);
    return;
  }
  if (typeof data !== "object" || data === null) return;
  const d = data as { messages?: unknown; enums?: unknown; services?: unknown };
  if (!Array.isArray(d.messages) || !Array.isArray(d.enums) || !Array.isArray(d.services)) return;
  const facts = {
    ...(data as ProtoFacts),
    messages: new Map(d.messages as Array<[string, MessageFacts]>),
    enums: new Map((d.enums as Array<[string, { values: Array<[string, number]>; reserved: string[] }]>).map(([n, e]) => [n, { ...e, values: new Map(e.values) }])),
    services: new Map((d.services as Array<[string, Array<[string, never]>]>).map(([n, rpcs]) => [n, new Map(rpcs)])),
  };
  keepRead(text, facts);
}

function factsOnce(path: string, text: string): ProtoFacts | Diagnostic {
  let parsed: protobuf.IParserResult;
  try {
    parsed = protobufLib().parse(text, { keepCase: true, alternateCommentMode: true });
  } catch (error) {
    return diagnostic("parse_error", "warning", path, `not a .proto file protobufjs reads: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
  }
  const pkg = parsed.package ?? "";
  const syntax = /^\s*(?:syntax|edition)\s*=\s*["']([^"']+)["']/m.exec(text)?.[1] ?? "proto2";
  const top: protobuf.NamespaceBase = pkg === "" ? parsed.root : ((parsed.root.lookup(pkg) as protobuf.Namespace | null) ?? parsed.root);
  const options: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...(parsed.root.options ?? {}), ...(top.options ?? {}) })) if (FILE_OPTIONS.includes(k)) options[k] = String(v);
  const messages = new Map<string, MessageFacts>();
  const enums = new Map<string, { values: Map<string, number>; reserved: string[] }>();
  const services = new Map<string, Map<string, { request: string; response: string; clientStreaming: boolean; serverStreaming: boolean; idempotency: string }>>();
  const reservedOf = (r: Array<number[] | string> | undefined): string[] => (r ?? []).map((x) => (typeof x === "string" ? `"${x}"` : x[0] === x[1] ? String(x[0]) : `${x[0]} to ${x[1]}`)).sort();
  const walk = (ns: protobuf.NamespaceBase, prefix: string): void => {
    for (const child of ns.nestedArray) {
      const name = `${prefix}${child.name}`;
      if (child instanceof protobufLib().Type) {
        const fields = child.fieldsArray.map((f) => {
          const o = (f.options ?? {}) as Record<string, unknown>;
          const map = f instanceof protobufLib().MapField ? `map<${f.keyType}, ${f.type}>` : null;
          return {
            name: f.name,
            number: f.id,
            type: map ?? f.type,
            cardinality: map !== null ? "map" : (f.rule ?? (o["proto3_optional"] === true ? "optional" : "singular")),
            oneof: f.partOf !== null && f.partOf !== undefined && o["proto3_optional"] !== true ? f.partOf.name : null,
            jsonName: typeof o["json_name"] === "string" ? o["json_name"] : null,
            defaultValue: o["default"] === undefined ? null : String(o["default"]),
            jstype: o["jstype"] === undefined ? null : String(o["jstype"]),
            ctype: o["ctype"] === undefined ? null : String(o["ctype"]),
          };
        });
        messages.set(name, { fields, reserved: reservedOf(child.reserved), oneofs: child.oneofsArray.filter((o) => !o.name.startsWith("_")).map((o) => o.name) });
        walk(child, `${name}.`);
      } else if (child instanceof protobufLib().Enum) {
        enums.set(name, { values: new Map(Object.entries(child.values)), reserved: reservedOf(child.reserved) });
      } else if (child instanceof protobufLib().Service) {
        const methods = new Map<string, { request: string; response: string; clientStreaming: boolean; serverStreaming: boolean; idempotency: string }>();
        for (const m of child.methodsArray) {
          const o = (m.options ?? {}) as Record<string, unknown>;
          methods.set(m.name, {
            request: m.requestType,
            response: m.responseType,
            clientStreaming: m.requestStream === true,
            serverStreaming: m.responseStream === true,
            idempotency: typeof o["idempotency_level"] === "string" ? o["idempotency_level"] : "IDEMPOTENCY_UNKNOWN",
          });
        }
        services.set(name, methods);
      } else if (child instanceof protobufLib().Namespace) walk(child, `${name}.`);
    }
  };
  walk(top, "");
  return { package: pkg, syntax, options, messages, enums, services };
}

/** Where a declaration was found: its offset in the text, and its line. */
interface Place {
  readonly at: number;
  readonly line: number;
}

/**
 * Where a declaration is (protobufjs keeps no positions): the first place from `from` on (its parent's place) at
 * `depth` braces deep, in code (not a comment or a string), that declares it; failing that, the first such place
 * anywhere, then the first in code at any depth. Places, not lines: from its parent's place and at its parent's depth
 * plus one, a field is found in its own message, not in the first message with a field of that name and number, and
 * a top-level enum is not taken for one nested in a message of the same name, also where a whole message, enum or
 * service is written on one line; the search is as long as the message, not the file.
 */
function placeFinder(text: string): (pattern: RegExp, from: number, depth: number) => Place {
  const { mask, depths } = braceDepths(text);
  const lineCol = lineIndex(text);
  const first = (g: RegExp, from: number, to: number, depth: number | null): number => {
    g.lastIndex = from;
    for (let m = g.exec(text); m !== null && m.index < to; m = g.exec(text)) {
      if (mask[m.index] === CODE && (depth === null || depths[m.index] === depth)) return m.index;
      g.lastIndex = m.index + 1;
    }
    return -1;
  };
  return (pattern, from, depth) => {
    const start = Math.min(Math.max(from, 0), text.length);
    const g = new RegExp(pattern.source, "g");
    let at = first(g, start, text.length, depth);
    if (at < 0) at = first(g, 0, start, depth);
    if (at < 0) at = first(g, 0, text.length, null);
    return at < 0 ? { at: 0, line: 1 } : { at, line: lineCol(at)[0] };
  };
}

/**
 * How many braces are open before each character, and which characters are code rather than comments and string
 * literals: `.proto` comments and strings are C's, which the scripts' lexer reads (a template or a regular
 * expression, the rest of what it knows, is no part of a `.proto`).
 */
function braceDepths(text: string): { mask: ReturnType<typeof codeMask>; depths: Uint16Array } {
  const mask = codeMask(text, "typescript");
  const depths = new Uint16Array(text.length);
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    depths[i] = depth;
    if (mask[i] !== CODE) continue;
    const c = text.charCodeAt(i);
    if (c === 123) depth = Math.min(depth + 1, 0xffff);
    else if (c === 125) depth = Math.max(depth - 1, 0);
  }
  return { mask, depths };
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The public surface of a `.proto` file (proto2, proto3, editions as protobufjs reads them): messages (`Order`,
 * nested `Order.Line`), their fields by name and number, enums and their values, services and their RPCs
 * (`OrderService.GetOrder`). Names are relative to the file's package, which is part of every signature.
 */
export function protobufSymbols(path: string, text: string, hash: HashText): { symbols: SymbolRecord[]; diagnostics: Diagnostic[] } {
  const facts = factsOf(path, text);
  if (!("messages" in facts)) return { symbols: [], diagnostics: [facts] };
  const place = placeFinder(text);
  const at = (n: number) => rangeOf(n, 1, n, 1);
  const entries: ContractEntry[] = [];
  const file = `${facts.syntax} ${facts.package}`;
  const push = (name: string, qualified: string, kind: SymbolKind, l: number, signature: string, detail: ContractEntry["detail"] = {}) =>
    entries.push({ name, qualified_name: qualified, kind, range: at(l), signature: `${file} ${signature}`, body: `${file} ${signature}`, detail });
  // (a nested declaration is looked for from its parent message's place on, one brace deeper)
  const placed = new Map<string, { at: number; depth: number }>();
  const parentOf = (name: string): { at: number; depth: number } => placed.get(name.slice(0, Math.max(name.lastIndexOf("."), 0))) ?? { at: 0, depth: -1 };
  // (a name where an identifier or a qualified name's part does not go on before it)
  const word = (s: string): string => `(?<![\\w.])${escapeRegExp(s)}`;
  for (const [name, m] of facts.messages) {
    const short = name.slice(name.lastIndexOf(".") + 1);
    const parent = parentOf(name);
    const p = place(new RegExp(`${word("message")}\\s+${escapeRegExp(short)}\\b`), parent.at, parent.depth + 1);
    placed.set(name, { at: p.at, depth: parent.depth + 1 });
    push(short, name, "message", p.line, `message ${name} reserved [${m.reserved.join(", ")}]`);
    for (const f of m.fields) {
      // (a oneof's fields are inside its own braces)
      const fl = place(new RegExp(`${word(f.name)}\\s*=\\s*${f.number}\\b`), p.at, parent.depth + (f.oneof === null ? 2 : 3)).line;
      push(
        f.name,
        `${name}.${f.name}`,
        "field",
        fl,
        `${f.cardinality} ${f.type} ${f.name} = ${f.number}${f.oneof === null ? "" : ` oneof ${f.oneof}`}${f.jsonName === null ? "" : ` json_name ${f.jsonName}`}`,
        {
          type: f.type,
          value: String(f.number),
        },
      );
    }
  }
  for (const [name, e] of facts.enums) {
    const short = name.slice(name.lastIndexOf(".") + 1);
    const parent = parentOf(name);
    const ep = place(new RegExp(`${word("enum")}\\s+${escapeRegExp(short)}\\b`), parent.at, parent.depth + 1);
    push(short, name, "enum", ep.line, `enum ${name} reserved [${e.reserved.join(", ")}]`);
    for (const [v, n] of e.values) push(v, `${name}.${v}`, "enum_member", place(new RegExp(`${word(v)}\\s*=`), ep.at, parent.depth + 2).line, `${v} = ${n}`, { value: String(n) });
  }
  for (const [name, methods] of facts.services) {
    const short = name.slice(name.lastIndexOf(".") + 1);
    const parent = parentOf(name);
    const sp = place(new RegExp(`${word("service")}\\s+${escapeRegExp(short)}\\b`), parent.at, parent.depth + 1);
    push(short, name, "interface", sp.line, `service ${name}`);
    for (const [m, r] of methods) {
      const params = [{ name: r.request, kind: "positional" as const, optional: false, default: null, type: r.request }];
      push(
        m,
        `${name}.${m}`,
        "operation",
        place(new RegExp(`${word("rpc")}\\s+${escapeRegExp(m)}\\b`), sp.at, parent.depth + 2).line,
        `rpc ${m}(${r.clientStreaming ? "stream " : ""}${r.request}) returns (${r.serverStreaming ? "stream " : ""}${r.response}) ${r.idempotency}`,
        {
          params,
          returns: r.response,
        },
      );
    }
  }
  if (entries.length > MAX_ENTRIES) return { symbols: [], diagnostics: [diagnostic("file_too_large", "warning", path, `more than ${MAX_ENTRIES} definitions: not read`)] };
  return { symbols: contractSymbols(entries, hash), diagnostics: [] };
}

/**
 * What changed between two versions of a `.proto` file, by the rules of `buf breaking`'s FILE category (the
 * default): nothing deleted (messages, fields, enums and their values, services, RPCs, oneofs, reserved ranges and
 * names), fields compared by number (same name, type, cardinality, oneof, json_name, default, jstype, ctype),
 * enum values by number (same name), RPCs by name (same request and response types, streaming, idempotency), the
 * same package, syntax and generated-code options, and the same required fields of a message. Each rule is its reason
 * code; additions are compatible.
 */
export function compareProtobuf(before: { text: string; symbols: readonly SymbolRecord[] } | null, after: { text: string; symbols: readonly SymbolRecord[] } | null): SymbolChange[] {
  const b = before === null ? null : factsOf("", before.text);
  const a = after === null ? null : factsOf("", after.text);
  const bf = b !== null && "messages" in b ? b : null;
  const af = a !== null && "messages" in a ? a : null;
  const reasons = new Map<string, ChangeReason[]>();
  const add = (name: string, code: string, verdict: "breaking" | "compatible", message: string) => reasons.set(name, [...(reasons.get(name) ?? []), reason(code, verdict, message)]);
  if (bf !== null && af !== null) fileRules(bf, af, add);
  const bSyms = new Map((before?.symbols ?? []).map((s) => [s.qualified_name, s]));
  const aSyms = new Map((after?.symbols ?? []).map((s) => [s.qualified_name, s]));
  const out: SymbolChange[] = [];
  for (const name of new Set([...bSyms.keys(), ...aSyms.keys(), ...reasons.keys()])) {
    const was = bSyms.get(name);
    const now = aSyms.get(name);
    const found = [...(reasons.get(name) ?? [])];
    if (was !== undefined && now === undefined && found.length === 0) {
      const code =
        { message: "MESSAGE_NO_DELETE", field: "FIELD_NO_DELETE", enum: "ENUM_NO_DELETE", enum_member: "ENUM_VALUE_NO_DELETE", interface: "SERVICE_NO_DELETE", operation: "RPC_NO_DELETE" }[
          was.kind as string
        ] ?? "DELETED";
      found.push(reason(code, "breaking", `${was.kind === "interface" ? "service" : was.kind === "operation" ? "rpc" : was.kind.replace("_", " ")} ${name} was deleted`));
    }
    if (was === undefined && now !== undefined && found.length === 0) found.push(reason("ADDED", "compatible", `${name} was added`));
    if (was !== undefined && now !== undefined && was.signature_hash !== now.signature_hash && found.length === 0)
      found.push(reason("CHANGED_COMPATIBLY", "compatible", "changed in a way buf's FILE rules allow"));
    const kind = (now ?? was)?.kind ?? "message";
    const change = was === undefined ? "added" : now === undefined ? "removed" : was.signature_hash !== now.signature_hash || found.length > 0 ? "signature_changed" : null;
    if (change === null) continue;
    const compatibility = found.some((r) => r.verdict === "breaking") ? "breaking" : found.length > 0 ? "compatible" : "internal";
    out.push({ qualified_name: name, kind, change, renamed_from: null, exported: true, compatibility, reasons: found });
  }
  return out.sort((x, y) => (x.qualified_name < y.qualified_name ? -1 : x.qualified_name > y.qualified_name ? 1 : 0));
}

function fileRules(b: ProtoFacts, a: ProtoFacts, add: (name: string, code: string, verdict: "breaking" | "compatible", message: string) => void): void {
  // File-wide rules are put on each top-level symbol of the file: every one of them moves.
  const tops = [...a.messages.keys(), ...a.enums.keys(), ...a.services.keys()].filter((n) => !n.includes("."));
  const onFile = (code: string, message: string) => {
    for (const t of tops.length > 0 ? tops : ["(file)"]) add(t, code, "breaking", message);
  };
  if (b.package !== a.package) onFile("FILE_SAME_PACKAGE", `the package changed from ${b.package || "(none)"} to ${a.package || "(none)"}`);
  if (b.syntax !== a.syntax) onFile("FILE_SAME_SYNTAX", `the syntax changed from ${b.syntax} to ${a.syntax}`);
  for (const o of FILE_OPTIONS) if (b.options[o] !== a.options[o]) onFile(`FILE_SAME_${o.toUpperCase()}`, `option ${o} changed`);
  for (const [name, bm] of b.messages) {
    const am = a.messages.get(name);
    if (am === undefined) continue;
    const byNumber = new Map(am.fields.map((f) => [f.number, f]));
    for (const bf of bm.fields) {
      const af = byNumber.get(bf.number);
      if (af === undefined) {
        const reserved = am.reserved.some((r) => r === String(bf.number) || r === `"${bf.name}"` || inRange(r, bf.number));
        add(
          `${name}.${bf.name}`,
          "FIELD_NO_DELETE",
          "breaking",
          `field ${bf.number} (${bf.name}) was deleted${reserved ? " (its number or name is reserved: old wire data stays readable, generated code still breaks)" : ""}`,
        );
        continue;
      }
      const on = `${name}.${af.name}`;
      if (af.name !== bf.name) {
        add(on, "FIELD_SAME_NAME", "breaking", `field ${bf.number} was renamed from ${bf.name} to ${af.name}`);
        add(`${name}.${bf.name}`, "FIELD_SAME_NAME", "breaking", `field ${bf.number} was renamed from ${bf.name} to ${af.name}`);
      }
      if (af.type !== bf.type) add(on, "FIELD_SAME_TYPE", "breaking", `field ${bf.number} changed type from ${bf.type} to ${af.type}`);
      if (af.cardinality !== bf.cardinality && !(af.type !== bf.type && (af.cardinality === "map" || bf.cardinality === "map")))
        add(on, "FIELD_SAME_CARDINALITY", "breaking", `field ${bf.number} changed cardinality from ${bf.cardinality} to ${af.cardinality}`);
      if (af.oneof !== bf.oneof) add(on, "FIELD_SAME_ONEOF", "breaking", `field ${bf.number} ${af.oneof === null ? "left oneof" : `moved into oneof ${af.oneof}`}`);
      if (af.jsonName !== bf.jsonName) add(on, "FIELD_SAME_JSON_NAME", "breaking", `field ${bf.number}'s json_name changed`);
      if (af.defaultValue !== bf.defaultValue) add(on, "FIELD_SAME_DEFAULT", "breaking", `field ${bf.number}'s default changed`);
      if (af.jstype !== bf.jstype) add(on, "FIELD_SAME_JSTYPE", "breaking", `field ${bf.number}'s jstype changed`);
      if (af.ctype !== bf.ctype) add(on, "FIELD_SAME_CTYPE", "breaking", `field ${bf.number}'s ctype changed`);
    }
    for (const r of bm.reserved) if (!am.reserved.includes(r)) add(name, "RESERVED_MESSAGE_NO_DELETE", "breaking", `reserved ${r} was removed`);
    for (const o of bm.oneofs) if (!am.oneofs.includes(o)) add(name, "ONEOF_NO_DELETE", "breaking", `oneof ${o} was deleted`);
    const required = (m: MessageFacts) =>
      m.fields
        .filter((f) => f.cardinality === "required")
        .map((f) => f.number)
        .sort((x, y) => x - y)
        .join(",");
    if (required(bm) !== required(am)) add(name, "MESSAGE_SAME_REQUIRED_FIELDS", "breaking", "its required fields changed");
  }
  for (const [name, be] of b.enums) {
    const ae = a.enums.get(name);
    if (ae === undefined) continue;
    const byNumber = new Map([...ae.values].map(([v, n]) => [n, v]));
    for (const [v, n] of be.values) {
      const nowName = byNumber.get(n);
      if (nowName === undefined) add(`${name}.${v}`, "ENUM_VALUE_NO_DELETE", "breaking", `enum value ${n} (${v}) was deleted`);
      else if (nowName !== v && !ae.values.has(v)) {
        add(`${name}.${nowName}`, "ENUM_VALUE_SAME_NAME", "breaking", `enum value ${n} was renamed from ${v} to ${nowName}`);
        add(`${name}.${v}`, "ENUM_VALUE_SAME_NAME", "breaking", `enum value ${n} was renamed from ${v} to ${nowName}`);
      }
    }
    for (const r of be.reserved) if (!ae.reserved.includes(r)) add(name, "RESERVED_ENUM_NO_DELETE", "breaking", `reserved ${r} was removed`);
  }
  for (const [name, bs] of b.services) {
    const as = a.services.get(name);
    if (as === undefined) continue;
    for (const [m, br] of bs) {
      const ar = as.get(m);
      if (ar === undefined) continue;
      const on = `${name}.${m}`;
      if (ar.request !== br.request) add(on, "RPC_SAME_REQUEST_TYPE", "breaking", `its request changed from ${br.request} to ${ar.request}`);
      if (ar.response !== br.response) add(on, "RPC_SAME_RESPONSE_TYPE", "breaking", `its response changed from ${br.response} to ${ar.response}`);
      if (ar.clientStreaming !== br.clientStreaming) add(on, "RPC_SAME_CLIENT_STREAMING", "breaking", `client streaming ${ar.clientStreaming ? "added" : "removed"}`);
      if (ar.serverStreaming !== br.serverStreaming) add(on, "RPC_SAME_SERVER_STREAMING", "breaking", `server streaming ${ar.serverStreaming ? "added" : "removed"}`);
      if (ar.idempotency !== br.idempotency) add(on, "RPC_SAME_IDEMPOTENCY_LEVEL", "breaking", `idempotency level changed from ${br.idempotency} to ${ar.idempotency}`);
    }
  }
}

function inRange(reserved: string, n: number): boolean {
  const m = /^(\d+) to (\d+|max)$/.exec(reserved);
  return m !== null && n >= Number(m[1]) && (m[2] === "max" || n <= Number(m[2]));
}
