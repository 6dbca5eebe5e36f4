import { readFileSync } from "node:fs";
import { endianness } from "node:os";
import { fileURLToPath } from "node:url";

/** What this module needs of web-tree-sitter's `Parser`: its one-time initialisation, given the Emscripten module object. */
export interface WebTreeSitterParser {
  init(moduleOptions?: object): Promise<void>;
}

/** The parts of web-tree-sitter's Emscripten module (its runtime exports) that the faster accessors replace or use. */
interface EmscriptenModule {
  HEAP32?: Int32Array;
  setValue?: (ptr: number, value: number, type?: string) => void;
  getValue?: (ptr: number, type?: string) => number | bigint;
  _malloc?: (size: number) => number;
  _free?: (ptr: number) => void;
  /** Emscripten's hook to instantiate the module's WebAssembly itself, with the imports it is given. */
  instantiateWasm?: (imports: WasmImports, done: (instance: unknown, module: unknown) => void) => void;
  /** What web-tree-sitter's `parse` reads the text through (set by each parse). */
  currentParseCallback?: ((index: number, position: { row: number; column: number }) => unknown) | null;
  /** Whether the faster accessors were installed, once tried. */
  [FAST]?: boolean;
}

interface WasmImports {
  readonly env: Record<string, unknown>;
}

/** The part of the global `WebAssembly` used here (the project's `lib` has no DOM types). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => unknown;
  Instance: new (module: unknown, imports: object) => unknown;
}

const FAST = Symbol("comity.fastI32Accessors");
/** The module object handed to web-tree-sitter's first initialisation in this thread (it becomes its module). */
let ours: EmscriptenModule | null = null;

/**
 * Initialises web-tree-sitter, and gives its module faster 32-bit memory
 * accessors when it can.
 *
 * web-tree-sitter 0.25 passes every node it is asked about into WebAssembly
 * memory and back through Emscripten's generic `setValue(ptr, value, "i32")`
 * and `getValue(ptr, "i32")`: a switch on the type's string, then a
 * little-endian `DataView` store or load. On a little-endian host that is
 * exactly `HEAP32[ptr >> 2]` (the generic ones also drop the low two bits of
 * `ptr`). Measured over the benchmark corpus on one thread: 0.5 s of 9.3 in
 * them (`--cpu-prof`), and the engine 1.13 times faster with these. Only the
 * `"i32"` case is replaced; any other type goes to the original.
 *
 * Emscripten makes the options object given to the first `init` the module
 * itself (web-tree-sitter keeps one module per thread), so these accessors are
 * installed only when this call is that first one, on a little-endian host,
 * and when values written and read through the new accessors and the
 * originals agree. Otherwise web-tree-sitter runs as shipped.
 *
 * @param moduleObject the options object to hand to `init` (a caller that
 *   wants to look at the module afterwards passes its own).
 * @returns whether the faster accessors are in use.
 */
export async function initWebTreeSitter(parser: WebTreeSitterParser, moduleObject: object = {}): Promise<boolean> {
  const candidate = moduleObject as EmscriptenModule;
  if (ours === null && candidate.instantiateWasm === undefined) withFasterInput(candidate);
  await parser.init(ours ?? candidate);
  if (ours === null && typeof candidate.setValue === "function") ours = candidate;
  if (ours === null) return false;
  ours[FAST] ??= installFastI32(ours);
  return ours[FAST];
}

function installFastI32(module: EmscriptenModule): boolean {
  const { setValue, getValue, _malloc: malloc, _free: free } = module;
  if (endianness() !== "LE" || setValue === undefined || getValue === undefined || malloc === undefined || free === undefined || !(module.HEAP32 instanceof Int32Array)) return false;
  const fastSet = (ptr: number, value: number, type?: string): void => {
    if (type === "i32") (module.HEAP32 as Int32Array)[ptr >> 2] = value;
    else setValue(ptr, value, type);
  };
  const fastGet = (ptr: number, type?: string): number | bigint => (type === "i32" ? ((module.HEAP32 as Int32Array)[ptr >> 2] as number) : getValue(ptr, type));
  // Checked, on a word of the module's memory allocated for it, against the originals before switching.
  const probe = malloc(8);
  fastSet(probe + 4, -123456789, "i32");
  setValue(probe, 987654321, "i32");
  const ok = getValue(probe + 4, "i32") === -123456789 && fastGet(probe, "i32") === 987654321;
  free(probe);
  if (!ok) return false;
  module.setValue = fastSet;
  module.getValue = fastGet;
  return true;
}

/**
 * web-tree-sitter's Emscripten module in this thread, once initialised through
 * {@link initWebTreeSitter} (null before, or when another caller initialised
 * it first). Its `_ts_*_wasm` exports are the C entry points that the library's
 * classes wrap.
 */
export function webTreeSitterModule(): Readonly<Record<string, unknown>> | null {
  return ours as Readonly<Record<string, unknown>> | null;
}

/** web-tree-sitter's input buffer: `BUFFER_SIZE` (10 KiB) in its `binding.c`, a `\0` included. */
const INPUT_BUFFER_BYTES = 10 * 1024;

/**
 * Has web-tree-sitter's WebAssembly instantiated here, with a faster copy of
 * the text into the parser (when its binary can be read; otherwise it loads
 * as shipped).
 *
 * The parser reads its text in chunks through the import
 * `tree_sitter_parse_callback`: web-tree-sitter asks its JavaScript callback
 * for the text from an index, then copies up to 5,119 UTF-16 units of it into
 * the input buffer one `DataView` store at a time (`stringToUTF16`). Here the
 * same import writes the same units with one `Buffer#write` in `utf16le`
 * (native code): on Python's standard library that copy took 0.3 s of 14 s
 * of the symbol pass (`--cpu-prof`). What it stores is the same: the length of
 * what the callback returned, then its first 5,119 units and a 0 unit.
 */
function withFasterInput(module: EmscriptenModule): void {
  let binary: Buffer;
  try {
    binary = readFileSync(fileURLToPath(import.meta.resolve("web-tree-sitter/tree-sitter.wasm")));
  } catch {
    return;
  }
  module.instantiateWasm = (imports, done) => {
    const shipped = imports.env["tree_sitter_parse_callback"];
    let view: Buffer | null = null;
    imports.env["tree_sitter_parse_callback"] = (buffer: number, index: number, row: number, column: number, lengthAddress: number): void => {
      const heap = (module as { HEAPU8?: Uint8Array }).HEAPU8;
      const words = module.HEAP32;
      if (heap === undefined || words === undefined || typeof shipped !== "function") {
        (shipped as (...args: number[]) => void)(buffer, index, row, column, lengthAddress);
        return;
      }
      const text = module.currentParseCallback?.(index, { row, column });
      if (typeof text !== "string") {
        words[lengthAddress >> 2] = 0;
        return;
      }
      words[lengthAddress >> 2] = text.length;
      // The module's memory may have grown since the last chunk: a view of its current buffer.
      if (view === null || view.buffer !== heap.buffer) view = Buffer.from(heap.buffer, heap.byteOffset, heap.byteLength);
      const units = Math.min(text.length, INPUT_BUFFER_BYTES / 2 - 1);
      const written = view.write(units === text.length ? text : text.slice(0, units), buffer, units * 2, "utf16le");
      view[buffer + written] = 0;
      view[buffer + written + 1] = 0;
    };
    // Synchronously: a binary that fails to compile throws here, and web-tree-sitter's init rejects with it (a
    // promise that failed would leave init waiting for ever).
    const api = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
    const compiled = new api.Module(binary);
    done(new api.Instance(compiled, imports), compiled);
  };
}
