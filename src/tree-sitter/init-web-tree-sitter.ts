import { endianness } from "node:os";

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
  /** Whether the faster accessors were installed, once tried. */
  [FAST]?: boolean;
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
  const fastGet = (ptr: number, type?: string): number | bigint => (type === "i32" ? (module.HEAP32 as Int32Array)[ptr >> 2] as number : getValue(ptr, type));
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
