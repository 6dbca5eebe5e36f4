import type { Diagnostic } from "../errors/diagnostic.js";

/** What a symbol is. Shared by every language; Python class and instance attributes are `property`. */
export type SymbolKind =
  | "function"
  | "method"
  | "class"
  | "interface"
  | "type"
  | "enum"
  | "enum_member"
  | "namespace"
  | "module"
  | "variable"
  | "property"
  | "reexport"
  // A service contract's: an HTTP operation or an RPC, a message or schema, one of their fields (`src/contracts/`).
  | "operation"
  | "message"
  | "field";

/** Lines are 1-based, columns 0-based (UTF-16 code units of the line, as editors count). */
export interface SourceRange {
  readonly start_line: number;
  readonly start_column: number;
  readonly end_line: number;
  readonly end_column: number;
}

/** One parameter of a function-like symbol, normalised. */
export interface ParamInfo {
  readonly name: string;
  /** `positional` (TypeScript), or Python's kinds. `rest` is `...args` / `*args`. */
  readonly kind: "positional" | "positional_only" | "positional_or_keyword" | "keyword_only" | "rest" | "var_keyword";
  readonly optional: boolean;
  readonly default: string | null;
  readonly type: string | null;
}

export interface TypeParamInfo {
  readonly name: string;
  readonly constraint: string | null;
  readonly default: string | null;
  /** `const`, `in`, `out`, as written (TypeScript); absent when there are none. */
  readonly modifiers?: readonly string[];
}

/**
 * The parts of a declaration that callers depend on, normalised (comments,
 * whitespace and trailing commas do not count). Its canonical JSON is what
 * `signature_hash` hashes. Kept on this machine only.
 */
export interface SignatureInfo {
  readonly name: string;
  readonly kind: SymbolKind;
  /** Sorted: `async`, `static`, `abstract`, `readonly`, `private`, `get`, `arrow`, `declare`, `decorator:@x`, ... */
  readonly modifiers: readonly string[];
  readonly type_params: readonly TypeParamInfo[];
  readonly params: readonly ParamInfo[] | null;
  readonly returns: string | null;
  /** Base classes, `extends` / `implements` clauses. */
  readonly heritage: readonly string[];
  /** Declared type of a property or variable, or a type alias's body. */
  readonly type: string | null;
  /** A value that is part of the API: an enum member's, a Python attribute's. */
  readonly value: string | null;
  /** Overload signatures (or getter and setter) grouped under one name, in source order. */
  readonly overloads: readonly SignatureInfo[];
}

/** A symbol as the engine reports it. `signature` and `detail` never leave the machine. */
export interface SymbolRecord {
  readonly name: string;
  readonly qualified_name: string;
  readonly kind: SymbolKind;
  readonly exported: boolean;
  readonly range: SourceRange;
  /** xxhash64 (hex) of the normalised signature. */
  readonly signature_hash: string;
  /** xxhash64 (hex) of the normalised body (for containers: without their member symbols). */
  readonly body_hash: string;
  /** The normalised signature as text, for people; never sent. */
  readonly signature: string;
  readonly detail: SignatureInfo;
}

/** Something a file uses: a call, a type, an import with its module specifier. */
export interface ReferenceRecord {
  readonly kind: "call" | "new" | "type" | "decorator" | "base" | "import" | "export";
  readonly name: string;
  readonly module: string | null;
}

export type LanguageId = "typescript" | "tsx" | "javascript" | "python" | "go" | "rust" | "java";

/** The service contracts read as symbols (`src/contracts/`): GraphQL SDL, OpenAPI (and Swagger 2), Protocol Buffers. */
export type ContractKind = "graphql" | "openapi" | "protobuf";

/** What `extractSymbols` finds in one file. */
export interface FileSymbols {
  readonly path: string;
  /** A contract's kind for a contract file (`comity symbols` reads them too). */
  readonly language: LanguageId | ContractKind | null;
  /** Sorted by qualified name, then kind. */
  readonly symbols: readonly SymbolRecord[];
  /** Sorted and de-duplicated. */
  readonly references: readonly ReferenceRecord[];
  readonly diagnostics: readonly Diagnostic[];
  /**
   * The qualified name of the symbol the module exports as its default (`export default function f() {}`,
   * `export default f`, `export { f as default }`): what `import f from "./m"` uses. Absent when there is none, or
   * when it is anonymous (a symbol named `default` stands for it then). Not printed by `comity symbols`.
   */
  readonly default_export?: string;
}
