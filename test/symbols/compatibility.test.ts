import { beforeAll, describe, expect, it } from "vitest";
import { compareSymbols, type SymbolChange } from "../../src/symbols/compare-symbols.js";
import { createSymbolExtractor, type SymbolExtractor } from "../../src/symbols/symbol-extractor.js";

let extractor: SymbolExtractor;
beforeAll(async () => {
  extractor = await createSymbolExtractor();
});

interface Row {
  /** The rule of docs/compatibility.md it checks. */
  readonly row: string;
  readonly before: string;
  readonly after: string;
  /** The change expected for `name`: its kind, verdict and one reason code it must carry. */
  readonly name: string;
  readonly change: SymbolChange["change"];
  readonly compatibility: SymbolChange["compatibility"];
  readonly code?: string;
  readonly conservative?: boolean;
  /** Every reason code the change carries, in order, where nothing else may be said. */
  readonly codes?: readonly string[];
}

function diff(file: string, before: string, after: string): SymbolChange[] {
  const b = extractor.extract(file, before);
  const a = extractor.extract(file, after);
  return compareSymbols(b.symbols, a.symbols, file.endsWith(".py") ? "python" : "typescript");
}

function check(file: string, r: Row): void {
  const changes = diff(file, r.before, r.after);
  const c = changes.find((x) => x.qualified_name === r.name);
  expect(c, `${r.row}: no change for ${r.name} in ${JSON.stringify(changes.map((x) => [x.qualified_name, x.change]))}`).toBeDefined();
  expect(c?.change, r.row).toBe(r.change);
  expect(c?.compatibility, `${r.row}: ${JSON.stringify(c?.reasons)}`).toBe(r.compatibility);
  if (r.code !== undefined) {
    const reason = c?.reasons.find((x) => x.code === r.code);
    expect(reason, `${r.row}: reasons ${JSON.stringify(c?.reasons.map((x) => x.code))}`).toBeDefined();
    if (r.conservative !== undefined) expect(reason?.conservative, r.row).toBe(r.conservative);
  }
  if (r.codes !== undefined)
    expect(
      c?.reasons.map((x) => x.code),
      r.row,
    ).toEqual(r.codes);
}

const TS: readonly Row[] = [
  { row: "export removed", before: "export function f() {}", after: "", name: "f", change: "removed", compatibility: "breaking", code: "EXPORT_REMOVED" },
  {
    row: "export renamed",
    before: "export function f(a: number) { return a; }",
    after: "export function g(a: number) { return a; }",
    name: "g",
    change: "renamed",
    compatibility: "breaking",
    code: "EXPORT_RENAMED",
  },
  {
    row: "new export, no name clash",
    before: "export function f() {}",
    after: "export function f() {}\nexport function g() {}",
    name: "g",
    change: "added",
    compatibility: "compatible",
    code: "EXPORT_ADDED",
  },
  {
    row: "new export sharing a name with an existing export",
    before: "export interface A { x: number }",
    after: "export interface A { x: number }\nexport const A = 1;",
    name: "A",
    change: "added",
    compatibility: "breaking",
    code: "EXPORT_NAME_CLASH",
  },
  {
    row: "export class → another kind of export",
    before: "export class A {}",
    after: "export interface A {}",
    name: "A",
    change: "signature_changed",
    compatibility: "breaking",
    code: "OBJECT_CHANGED_KIND",
  },
  {
    row: "interface → type alias",
    before: "export interface A { x: number }",
    after: "export type A = { x: number };",
    name: "A",
    change: "signature_changed",
    compatibility: "breaking",
    code: "INTERFACE_TO_TYPE",
  },
  {
    row: "namespace → any other kind",
    before: "export namespace N { export const x = 1; }",
    after: "export const N = { x: 1 };",
    name: "N",
    change: "signature_changed",
    compatibility: "breaking",
    code: "OBJECT_CHANGED_KIND",
  },
  {
    row: "required parameter added",
    before: "export function parseConfig(path: string) {}",
    after: "export function parseConfig(path: string, strict: boolean) {}",
    name: "parseConfig",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PARAMETER_ADDED_REQUIRED",
  },
  {
    row: "optional parameter added",
    before: "export function f(a: string) {}",
    after: "export function f(a: string, b?: number) {}",
    name: "f",
    change: "signature_changed",
    compatibility: "compatible",
    code: "PARAMETER_ADDED_OPTIONAL",
  },
  {
    row: "required → optional",
    before: "export function f(a: string) {}",
    after: "export function f(a?: string) {}",
    name: "f",
    change: "signature_changed",
    compatibility: "compatible",
    code: "PARAMETER_CHANGED_OPTIONAL",
  },
  {
    row: "parameter removed",
    before: "export function f(a: string, b: number) {}",
    after: "export function f(a: string) {}",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PARAMETER_REMOVED",
  },
  {
    row: "required parameter inserted before the others (matched by name: not their type and name changes)",
    before: "export function f(path: string, strict: boolean) {}",
    after: "export function f(ctx: Context, path: string, strict: boolean) {}",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    codes: ["PARAMETER_INSERTED"],
  },
  {
    row: "optional parameter inserted before another (every call's arguments move)",
    before: "export function f(path: string) {}",
    after: "export function f(base?: string, path?: string) {}",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    codes: ["PARAMETER_INSERTED", "PARAMETER_CHANGED_OPTIONAL"],
  },
  {
    row: "parameter removed from the middle",
    before: "export function f(a: string, b: number, c: boolean) {}",
    after: "export function f(a: string, c: boolean) {}",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    codes: ["PARAMETER_REMOVED"],
  },
  {
    row: "parameters reordered",
    before: "export function f(a: string, b: number) {}",
    after: "export function f(b: number, a: string) {}",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    codes: ["PARAMETER_REORDERED"],
  },
  {
    row: "parameter renamed in place (positional: callers unaffected)",
    before: "export function f(a: string, b: number) {}",
    after: "export function f(a: string, count: number) {}",
    name: "f",
    change: "signature_changed",
    compatibility: "compatible",
    codes: ["PARAMETER_RENAMED"],
  },
  {
    row: "required parameter appended after a renamed one",
    before: "export function f(a: string, b: number) {}",
    after: "export function f(a: string, count: number, c: boolean) {}",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    codes: ["PARAMETER_RENAMED", "PARAMETER_ADDED_REQUIRED"],
  },
  {
    row: "parameter type narrowed / changed",
    before: "export function f(a: string | number) {}",
    after: "export function f(a: string) {}",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PARAMETER_CHANGED_TYPE",
    conservative: true,
  },
  {
    row: "parameter type widened (syntax reports it, conservatively)",
    before: "export function f(a: string) {}",
    after: "export function f(a: string | number) {}",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PARAMETER_CHANGED_TYPE",
    conservative: true,
  },
  {
    row: "return type widened / changed",
    before: "export function f(): string { return ''; }",
    after: "export function f(): string | null { return null; }",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    code: "RETURN_CHANGED_TYPE",
    conservative: true,
  },
  {
    row: "return type narrowed (syntax cannot tell)",
    before: "export function f(): string | null { return null; }",
    after: "export function f(): string { return ''; }",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    code: "RETURN_CHANGED_TYPE",
    conservative: true,
  },
  {
    row: "function declaration → arrow const",
    before: "export function f(a: number) { return a; }",
    after: "export const f = (a: number) => a;",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    code: "FUNCTION_TO_ARROW",
  },
  {
    row: "arrow const → function declaration",
    before: "export const f = (a: number) => a;",
    after: "export function f(a: number) { return a; }",
    name: "f",
    change: "signature_changed",
    compatibility: "compatible",
    code: "ARROW_TO_FUNCTION",
  },
  {
    row: "overload removed",
    before: "export function f(a: string): void;\nexport function f(a: number): void;\nexport function f(a: any) {}",
    after: "export function f(a: string): void;\nexport function f(a: any) {}",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    code: "OVERLOAD_REMOVED",
  },
  {
    row: "overload added",
    before: "export function f(a: string): void;\nexport function f(a: any) {}",
    after: "export function f(a: string): void;\nexport function f(a: number): void;\nexport function f(a: any) {}",
    name: "f",
    change: "signature_changed",
    compatibility: "compatible",
    code: "OVERLOAD_ADDED",
  },
  {
    row: "required property added to an interface",
    before: "export interface Config { a: string }",
    after: "export interface Config { a: string; b: number }",
    name: "Config.b",
    change: "added",
    compatibility: "breaking",
    code: "PROPERTY_ADDED_REQUIRED",
  },
  {
    row: "required property added to a type literal",
    before: "export type Config = { a: string };",
    after: "export type Config = { a: string; b: number };",
    name: "Config",
    change: "signature_changed",
    compatibility: "breaking",
    code: "TYPE_ALIAS_CHANGED",
    conservative: true,
  },
  {
    row: "optional property added",
    before: "export interface Config { a: string }",
    after: "export interface Config { a: string; b?: number }",
    name: "Config.b",
    change: "added",
    compatibility: "compatible",
    code: "PROPERTY_ADDED_OPTIONAL",
  },
  {
    row: "property removed (even optional)",
    before: "export interface Config { a: string; b?: number }",
    after: "export interface Config { a: string }",
    name: "Config.b",
    change: "removed",
    compatibility: "breaking",
    code: "PROPERTY_REMOVED",
  },
  {
    row: "mutable property type changed",
    before: "export interface C { a: string }",
    after: "export interface C { a: string | number }",
    name: "C.a",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PROPERTY_CHANGED_TYPE",
    conservative: true,
  },
  {
    row: "readonly property type changed (syntax cannot tell the direction)",
    before: "export interface C { readonly a: string }",
    after: "export interface C { readonly a: 'x' }",
    name: "C.a",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PROPERTY_CHANGED_TYPE",
    conservative: true,
  },
  {
    row: "declared type of a function-valued const changed (conservative)",
    before: "export const f: (a: number) => void = (a) => {};",
    after: "export const f: (a: number, b: string) => void = (a) => {};",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    code: "VARIABLE_TYPE_CHANGED",
    conservative: true,
  },
  {
    row: "a method's decorator changed (a route, say)",
    before: "export class C {\n  @Get(':id') find() {}\n}",
    after: "export class C {\n  @Get(':slug') find() {}\n}",
    name: "C.find",
    change: "signature_changed",
    compatibility: "compatible",
    code: "DECORATOR_CHANGED",
  },
  {
    row: "an exported class's decorator changed",
    before: "@Component({ selector: 'a' })\nexport class A {}",
    after: "@Component({ selector: 'b' })\nexport class A {}",
    name: "A",
    change: "signature_changed",
    compatibility: "compatible",
    code: "DECORATOR_CHANGED",
  },
  {
    row: "parameter property made private (the class loses a public property)",
    before: "export class P { constructor(public x: number) {} }",
    after: "export class P { constructor(private x: number) {} }",
    name: "P.x",
    change: "signature_changed",
    compatibility: "breaking",
    code: "VISIBILITY_NARROWED",
  },
  {
    row: "parameter property's modifier removed (no property any more)",
    before: "export class P { constructor(readonly y: number) {} }",
    after: "export class P { constructor(y: number) {} }",
    name: "P.y",
    change: "removed",
    compatibility: "breaking",
    code: "PROPERTY_REMOVED",
  },
  {
    row: "re-export became type-only",
    before: "export { A } from './a';",
    after: "export type { A } from './a';",
    name: "A",
    change: "signature_changed",
    compatibility: "breaking",
    code: "EXPORT_BECAME_TYPE_ONLY",
  },
  {
    row: "type-only re-export became a value re-export",
    before: "export type { A } from './a';",
    after: "export { A } from './a';",
    name: "A",
    change: "signature_changed",
    compatibility: "compatible",
    code: "EXPORT_BECAME_VALUE",
  },
  {
    row: "a function of an exported object literal gains a required parameter",
    before: "export const api = { get(id: string) {}, post: (b: B) => b };",
    after: "export const api = { get(id: string, opts: O) {}, post: (b: B) => b };",
    name: "api.get",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PARAMETER_ADDED_REQUIRED",
  },
  {
    row: "a function of an exported object literal removed",
    before: "export const api = { get() {}, post: (b: B) => b };",
    after: "export const api = { get() {} };",
    name: "api.post",
    change: "removed",
    compatibility: "breaking",
    code: "METHOD_REMOVED",
  },
  {
    row: "index signature's value type changed (conservative)",
    before: "export interface D { [key: string]: number }",
    after: "export interface D { [key: string]: string }",
    name: "D.__index",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PROPERTY_CHANGED_TYPE",
    conservative: true,
  },
  {
    row: "call signature of an interface gains a required parameter",
    before: "export interface Fn { (x: number): string }",
    after: "export interface Fn { (x: number, y: number): string }",
    name: "Fn.__call",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PARAMETER_ADDED_REQUIRED",
  },
  {
    row: "construct signature's type changed (conservative)",
    before: "export interface K { new (s: string): A }",
    after: "export interface K { new (s: string): B }",
    name: "K.__new",
    change: "signature_changed",
    compatibility: "breaking",
    code: "RETURN_CHANGED_TYPE",
    conservative: true,
  },
  {
    row: "property optional → required",
    before: "export interface C { a?: string }",
    after: "export interface C { a: string }",
    name: "C.a",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PROPERTY_BECAME_REQUIRED",
  },
  {
    row: "property required → optional (breaks readers of a mutable property)",
    before: "export interface C { a: string }",
    after: "export interface C { a?: string }",
    name: "C.a",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PROPERTY_BECAME_OPTIONAL",
  },
  {
    row: "readonly property required → optional (writers only)",
    before: "export interface C { readonly a: string }",
    after: "export interface C { readonly a?: string }",
    name: "C.a",
    change: "signature_changed",
    compatibility: "compatible",
    code: "PROPERTY_BECAME_OPTIONAL",
  },
  {
    row: "property made readonly",
    before: "export interface C { a: string }",
    after: "export interface C { readonly a: string }",
    name: "C.a",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PROPERTY_BECAME_READONLY",
  },
  {
    row: "property made mutable",
    before: "export interface C { readonly a: string }",
    after: "export interface C { a: string }",
    name: "C.a",
    change: "signature_changed",
    compatibility: "compatible",
    code: "PROPERTY_BECAME_MUTABLE",
  },
  {
    row: "required interface method added",
    before: "export interface Repo { get(id: string): void }",
    after: "export interface Repo { get(id: string): void; put(id: string): void }",
    name: "Repo.put",
    change: "added",
    compatibility: "breaking",
    code: "INTERFACE_METHOD_ADDED_REQUIRED",
  },
  {
    row: "public class method removed",
    before: "export class S { run() {} stop() {} }",
    after: "export class S { run() {} }",
    name: "S.stop",
    change: "removed",
    compatibility: "breaking",
    code: "METHOD_REMOVED",
  },
  { row: "public class property removed", before: "export class S { size = 1; }", after: "export class S {}", name: "S.size", change: "removed", compatibility: "breaking", code: "PROPERTY_REMOVED" },
  {
    row: "public class method added",
    before: "export class S { run() {} }",
    after: "export class S { run() {} stop() {} }",
    name: "S.stop",
    change: "added",
    compatibility: "compatible",
    code: "METHOD_ADDED",
  },
  {
    row: "static ↔ instance member",
    before: "export class S { run() {} }",
    after: "export class S { static run() {} }",
    name: "S.run",
    change: "signature_changed",
    compatibility: "breaking",
    code: "STATIC_CHANGED",
  },
  {
    row: "constructor signature changed",
    before: "export class S { constructor(a: string) {} }",
    after: "export class S { constructor(a: string, b: number) {} }",
    name: "S.constructor",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PARAMETER_ADDED_REQUIRED",
  },
  {
    row: "constructor visibility narrowed",
    before: "export class S { constructor() {} }",
    after: "export class S { private constructor() {} }",
    name: "S.constructor",
    change: "signature_changed",
    compatibility: "breaking",
    code: "EXPORT_REMOVED",
  },
  {
    row: "method visibility narrowed to protected",
    before: "export class S { run() {} }",
    after: "export class S { protected run() {} }",
    name: "S.run",
    change: "signature_changed",
    compatibility: "breaking",
    code: "VISIBILITY_NARROWED",
  },
  { row: "enum member removed", before: "export enum E { A, B }", after: "export enum E { A }", name: "E.B", change: "removed", compatibility: "breaking", code: "ENUM_MEMBER_REMOVED" },
  {
    row: "enum member value changed",
    before: "export enum E { A = 1 }",
    after: "export enum E { A = 2 }",
    name: "E.A",
    change: "signature_changed",
    compatibility: "breaking",
    code: "ENUM_MEMBER_VALUE_CHANGED",
  },
  { row: "enum member added", before: "export enum E { A }", after: "export enum E { A, B }", name: "E.B", change: "added", compatibility: "compatible", code: "ENUM_MEMBER_ADDED" },
  {
    row: "generic param added without default",
    before: "export function f(a: string) {}",
    after: "export function f<T>(a: string) {}",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    code: "GENERIC_PARAM_ADDED_REQUIRED",
  },
  {
    row: "generic param removed",
    before: "export interface Box<T> { v: T }",
    after: "export interface Box { v: string }",
    name: "Box",
    change: "signature_changed",
    compatibility: "breaking",
    code: "GENERIC_PARAM_REMOVED",
  },
  {
    row: "generic param added with default",
    before: "export interface Box { v: string }",
    after: "export interface Box<T = string> { v: string }",
    name: "Box",
    change: "signature_changed",
    compatibility: "compatible",
    code: "GENERIC_PARAM_ADDED_WITH_DEFAULT",
  },
  {
    row: "generic constraint / default changed",
    before: "export function f<T extends string>(a: T) {}",
    after: "export function f<T extends object>(a: T) {}",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    code: "GENERIC_CONSTRAINT_CHANGED",
    conservative: true,
  },
  {
    row: "type alias body changed",
    before: "export type Id = string;",
    after: "export type Id = string | number;",
    name: "Id",
    change: "signature_changed",
    compatibility: "breaking",
    code: "TYPE_ALIAS_CHANGED",
    conservative: true,
  },
  {
    row: "exported variable's type changed",
    before: "export const limit: number = 1;",
    after: "export const limit: string = '1';",
    name: "limit",
    change: "signature_changed",
    compatibility: "breaking",
    code: "VARIABLE_TYPE_CHANGED",
    conservative: true,
  },
  {
    row: "@deprecated added",
    before: "export function old() {}",
    after: "/** @deprecated use fresh() */\nexport function old() {}",
    name: "old",
    change: "signature_changed",
    compatibility: "compatible",
    code: "DEPRECATED_ADDED",
  },
  {
    row: "body-only edit",
    before: "export function f(a: number) { return a; }",
    after: "export function f(a: number) { return a + 1; }",
    name: "f",
    change: "body_changed",
    compatibility: "internal",
  },
  { row: "non-exported symbol changed", before: "function f(a: number) {}", after: "function f(a: number, b: number) {}", name: "f", change: "signature_changed", compatibility: "internal" },
  {
    row: "private member changed",
    before: "export class S { private run(a: number) {} }",
    after: "export class S { private run() {} }",
    name: "S.run",
    change: "signature_changed",
    compatibility: "internal",
  },
  {
    row: "@internal-tagged item changed",
    before: "/** @internal */\nexport function f(a: number) {}",
    after: "/** @internal */\nexport function f() {}",
    name: "f",
    change: "signature_changed",
    compatibility: "internal",
  },
  {
    row: "heritage removed",
    before: "export class A extends B implements C {}",
    after: "export class A extends B {}",
    name: "A",
    change: "signature_changed",
    compatibility: "breaking",
    code: "HERITAGE_REMOVED",
  },
];

const PY: readonly Row[] = [
  { row: "public object removed", before: "def f(): pass\ndef g(): pass", after: "def f(): pass", name: "g", change: "removed", compatibility: "breaking", code: "OBJECT_REMOVED" },
  { row: "object changed kind", before: "def Thing(): pass", after: "class Thing: pass", name: "Thing", change: "signature_changed", compatibility: "breaking", code: "OBJECT_CHANGED_KIND" },
  { row: "parameter removed", before: "def f(a, b): pass", after: "def f(a): pass", name: "f", change: "signature_changed", compatibility: "breaking", code: "PARAMETER_REMOVED" },
  {
    row: "parameter removed but swallowed by **kwargs",
    before: "def f(a, *, b=1): pass",
    after: "def f(a, **kwargs): pass",
    name: "f",
    change: "signature_changed",
    compatibility: "compatible",
    code: "PARAMETER_REMOVED_SWALLOWED",
  },
  { row: "positional parameter moved", before: "def f(a, b): pass", after: "def f(b, a): pass", name: "f", change: "signature_changed", compatibility: "breaking", code: "PARAMETER_MOVED" },
  { row: "parameter kind changed", before: "def f(a, b): pass", after: "def f(a, *, b): pass", name: "f", change: "signature_changed", compatibility: "breaking", code: "PARAMETER_CHANGED_KIND" },
  {
    row: "parameter default changed",
    before: "def f(a, b=1): pass",
    after: "def f(a, b=2): pass",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PARAMETER_CHANGED_DEFAULT",
  },
  { row: "optional → required", before: "def f(a, b=1): pass", after: "def f(a, b): pass", name: "f", change: "signature_changed", compatibility: "breaking", code: "PARAMETER_CHANGED_REQUIRED" },
  {
    row: "required parameter added",
    before: "def parse_config(path): pass",
    after: "def parse_config(path, strict): pass",
    name: "parse_config",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PARAMETER_ADDED_REQUIRED",
  },
  { row: "optional parameter added", before: "def f(a): pass", after: "def f(a, b=None): pass", name: "f", change: "signature_changed", compatibility: "compatible", code: "PARAMETER_ADDED_OPTIONAL" },
  { row: "required → optional", before: "def f(a, b): pass", after: "def f(a, b=None): pass", name: "f", change: "signature_changed", compatibility: "compatible", code: "PARAMETER_CHANGED_OPTIONAL" },
  { row: "return annotation removed", before: "def f() -> int: pass", after: "def f(): pass", name: "f", change: "signature_changed", compatibility: "breaking", code: "RETURN_CHANGED_TYPE" },
  { row: "return annotation added", before: "def f(): pass", after: "def f() -> int: pass", name: "f", change: "signature_changed", compatibility: "compatible", code: "RETURN_ANNOTATION_ADDED" },
  {
    row: "return annotation changed (conservative)",
    before: "def f() -> int: pass",
    after: "def f() -> str: pass",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    code: "RETURN_CHANGED_TYPE",
    conservative: true,
  },
  {
    row: "attribute annotation changed (conservative)",
    before: "LIMIT: int = 1",
    after: "LIMIT: float = 1",
    name: "LIMIT",
    change: "signature_changed",
    compatibility: "breaking",
    code: "ATTRIBUTE_CHANGED_TYPE",
    conservative: true,
  },
  { row: "module attribute value changed", before: "TIMEOUT = 1", after: "TIMEOUT = 2", name: "TIMEOUT", change: "signature_changed", compatibility: "breaking", code: "ATTRIBUTE_CHANGED_VALUE" },
  {
    row: "class attribute value changed",
    before: "class C:\n    retries = 3",
    after: "class C:\n    retries = 5",
    name: "C.retries",
    change: "signature_changed",
    compatibility: "breaking",
    code: "ATTRIBUTE_CHANGED_VALUE",
  },
  {
    row: "an attribute set through self in a tuple assignment removed",
    before: "class C:\n    def __init__(self, a, b):\n        self.a, self.b = a, b",
    after: "class C:\n    def __init__(self, a, b):\n        self.a = a",
    name: "C.b",
    change: "removed",
    compatibility: "breaking",
    code: "OBJECT_REMOVED",
  },
  { row: "base class removed", before: "class C(A, B): pass", after: "class C(A): pass", name: "C", change: "signature_changed", compatibility: "breaking", code: "CLASS_REMOVED_BASE" },
  { row: "new public object", before: "def f(): pass", after: "def f(): pass\ndef g(): pass", name: "g", change: "added", compatibility: "compatible", code: "OBJECT_ADDED" },
  {
    row: "new public member",
    before: "class C:\n    def a(self): pass",
    after: "class C:\n    def a(self): pass\n    def b(self): pass",
    name: "C.b",
    change: "added",
    compatibility: "compatible",
    code: "OBJECT_ADDED",
  },
  { row: "new base", before: "class C(A): pass", after: "class C(A, B): pass", name: "C", change: "signature_changed", compatibility: "compatible", code: "CLASS_ADDED_BASE" },
  {
    row: "decorator changed (not checked by griffe)",
    before: "@cache\ndef f(): pass",
    after: "@lru_cache(8)\ndef f(): pass",
    name: "f",
    change: "signature_changed",
    compatibility: "compatible",
    code: "DECORATOR_CHANGED",
  },
  {
    row: "staticmethod added changes how it is called",
    before: "class C:\n    def f(self): pass",
    after: "class C:\n    @staticmethod\n    def f(self): pass",
    name: "C.f",
    change: "signature_changed",
    compatibility: "breaking",
    code: "OBJECT_CHANGED_KIND",
  },
  { row: "underscore name changed", before: "def _f(a): pass", after: "def _f(): pass", name: "_f", change: "signature_changed", compatibility: "internal" },
  {
    row: "name not in a defined __all__",
    before: "__all__ = ['g']\ndef f(a): pass\ndef g(): pass",
    after: "__all__ = ['g']\ndef f(): pass\ndef g(): pass",
    name: "f",
    change: "signature_changed",
    compatibility: "internal",
  },
  {
    row: "public through __all__.extend (griffe's form)",
    before: "__all__ = ['g']\n__all__.extend(['f'])\ndef f(): pass\ndef g(): pass",
    after: "__all__ = ['g']\n__all__.extend(['f'])\ndef f(a): pass\ndef g(): pass",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PARAMETER_ADDED_REQUIRED",
  },
  {
    row: "removed from __all__",
    before: "__all__ = ['f', 'g']\ndef f(): pass\ndef g(): pass",
    after: "__all__ = ['g']\ndef f(): pass\ndef g(): pass",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    code: "OBJECT_REMOVED",
  },
  {
    row: "type parameter's bound changed (PEP 695, conservative)",
    before: "def f[T: int](x: T) -> T: pass",
    after: "def f[T: str](x: T) -> T: pass",
    name: "f",
    change: "signature_changed",
    compatibility: "breaking",
    code: "TYPE_PARAMETERS_CHANGED",
    conservative: true,
  },
  {
    row: "type parameter added to a generic class (PEP 695, conservative)",
    before: "class Box[T]: pass",
    after: "class Box[T, U]: pass",
    name: "Box",
    change: "signature_changed",
    compatibility: "breaking",
    code: "TYPE_PARAMETERS_CHANGED",
    conservative: true,
  },
  {
    row: "generic type alias's parameters changed (PEP 695)",
    before: "type Pair[K] = tuple[K, K]",
    after: "type Pair[K, V] = tuple[K, V]",
    name: "Pair",
    change: "signature_changed",
    compatibility: "breaking",
    code: "TYPE_PARAMETERS_CHANGED",
  },
  { row: "body-only edit", before: "def f(a):\n    return a", after: "def f(a):\n    return a + 1", name: "f", change: "body_changed", compatibility: "internal" },
  { row: "docstring edit", before: "def f(a):\n    '''Old.'''\n    return a", after: "def f(a):\n    '''New.'''\n    return a", name: "f", change: "body_changed", compatibility: "internal" },
];

/** JavaScript's CommonJS exports count as exports: a changed export breaks callers, a changed local does not. */
const CJS: readonly Row[] = [
  {
    row: "exports.f gains a required parameter",
    before: "exports.parse = function (text) {};",
    after: "exports.parse = function (text, strict) {};",
    name: "parse",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PARAMETER_ADDED_REQUIRED",
  },
  {
    row: "a local exported through module.exports = { ... } loses a parameter",
    before: "function parse(a, b) {}\nmodule.exports = { parse };",
    after: "function parse(a) {}\nmodule.exports = { parse };",
    name: "parse",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PARAMETER_REMOVED",
  },
  {
    row: "a method of module.exports removed",
    before: "module.exports = { run() {}, stop() {} };",
    after: "module.exports = { run() {} };",
    name: "stop",
    change: "removed",
    compatibility: "breaking",
    code: "EXPORT_REMOVED",
  },
  {
    row: "a local no export names changes",
    before: "function helper(a) {}\nmodule.exports = { other: 1 };",
    after: "function helper() {}\nmodule.exports = { other: 1 };",
    name: "helper",
    change: "signature_changed",
    compatibility: "internal",
  },
];

describe("JavaScript CommonJS exports", () => {
  for (const r of CJS) it(r.row, () => check("mod.cjs", r));
});

describe("TypeScript compatibility (every row of the reference table)", () => {
  for (const r of TS) it(r.row, () => check("mod.ts", r));
});

describe("Python compatibility (every row of the reference table, griffe's kinds)", () => {
  for (const r of PY) it(r.row, () => check("mod.py", r));
});

describe("signature and body hashes", () => {
  it("ignore whitespace, comments, formatting and trailing commas; see every body edit", () => {
    const base = extractor.extract("a.ts", "export function f(a: number, b: string): void { go(a); }").symbols[0];
    const variants = [
      "export function f(a:number,b:string):void{go(a);}",
      "export function f(\n  a: number, // first\n  b: string, /* second */\n): void {\n  go(a);\n}",
      "/** doc */\nexport  function  f( a : number , b : string ) : void { go( a ) ; }",
    ];
    for (const v of variants) {
      const s = extractor.extract("a.ts", v).symbols[0];
      expect(s?.signature_hash, v).toBe(base?.signature_hash);
      expect(s?.body_hash, v).toBe(base?.body_hash);
    }
    const bodyEdit = extractor.extract("a.ts", "export function f(a: number, b: string): void { go(b); }").symbols[0];
    expect(bodyEdit?.signature_hash).toBe(base?.signature_hash);
    expect(bodyEdit?.body_hash).not.toBe(base?.body_hash);
    for (const changed of [
      "export function f(a: number, b?: string): void { go(a); }",
      "export function f(a: number, b: string = 'x'): void { go(a); }",
      "export function f<T>(a: number, b: string): void { go(a); }",
      "export function f(a: number, b: string): number { go(a); }",
      "export async function f(a: number, b: string): void { go(a); }",
      "export function g(a: number, b: string): void { go(a); }",
    ]) {
      expect(extractor.extract("a.ts", changed).symbols[0]?.signature_hash, changed).not.toBe(base?.signature_hash);
    }
  });

  it("same for Python", () => {
    const base = extractor.extract("a.py", "def f(a, b: int = 1) -> str:\n    return go(a)\n").symbols[0];
    const same = extractor.extract("a.py", "def f(a,b:int=1)->str:  # comment\n    return go( a )\n").symbols[0];
    expect(same?.signature_hash).toBe(base?.signature_hash);
    expect(same?.body_hash).toBe(base?.body_hash);
    expect(extractor.extract("a.py", "def f(a, b: int = 2) -> str:\n    return go(a)\n").symbols[0]?.signature_hash).not.toBe(base?.signature_hash);
  });

  it("reports a rename when signature and body are the same", () => {
    const changes = diff("a.py", "def old_name(a):\n    return a * 2\n", "def new_name(a):\n    return a * 2\n");
    expect(changes).toEqual([expect.objectContaining({ qualified_name: "new_name", change: "renamed", renamed_from: "old_name", compatibility: "breaking" })]);
  });
});
