// The JSON Schemas of dmac's documents (schemas/*.schema.json, draft-07, published in the
// package): the manifest and the command trace, and every JSON output (each command's
// `--format json` document, schemas/<command>.schema.json, and the diagnostics document they
// share; `sim -o`'s Chrome trace; target descriptions as `calibrate -o` writes them).
// `validateDocument` checks a parsed document against one with ajv (compiled once, on first use);
// `checkExecutorInput` is the structural half of the executor's input validation as a DMAC6011
// (types, required fields, enums, fixed ranges, file names), the JSON path of the first problem
// in the form src/sim/validate-input.ts reports. What a schema cannot say (GPUs below `ranks`,
// unique names, disjoint areas, regions holding their areas, relocations inside their streams,
// slot counts bounded by the input's size) stays in code.

import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type {
  Ajv,
  ErrorObject,
  FuncKeywordDefinition,
  SchemaValidateFunction,
  ValidateFunction,
} from "ajv";
import { diag, type Diagnostic } from "./diagnostics/diagnostic.js";

/** Every published schema: schemas/NAME.schema.json. */
export const SCHEMA_NAMES = [
  "manifest",
  "trace",
  "diagnostics",
  "sim",
  "disasm",
  "target",
  "chrome-trace",
  "sweep",
  "snapshot",
  "cuda-program",
  "cuda-results",
  "check",
  "ir",
  "explain",
  "compile",
  "golden",
  "calibrate",
  "fmt",
  "target-import",
  "measure",
  "postmortem",
] as const;
export type SchemaName = (typeof SCHEMA_NAMES)[number];

/** Definitions the others refer to (not a document of its own). */
const SHARED = ["common"] as const;

/** One reason a document does not match its schema. */
export interface SchemaProblem {
  /** JSON path of the offending value: `$.queues[0].gpu`. */
  readonly path: string;
  readonly message: string;
}

/** The absolute path of schemas/NAME.schema.json (in the package, beside dist/). */
export function schemaPath(name: SchemaName | (typeof SHARED)[number]): string {
  schemaDir ??=
    SCHEMA_DIRS.map((d) => new URL(d, import.meta.url)).find((u) =>
      existsSync(new URL("common.schema.json", u)),
    ) ?? new URL(SCHEMA_DIRS[0], import.meta.url);
  return fileURLToPath(new URL(`${name}.schema.json`, schemaDir));
}

/**
 * Where schemas/ is from this module: dist/schemas.js (and src/schemas.ts) lie one directory
 * below the package root, the bundled CLI (dist/bundle/dmac.cjs, scripts/bundle.mjs) two.
 */
const SCHEMA_DIRS = ["../schemas/", "../../schemas/"] as const;
let schemaDir: URL | undefined;

let loaded: Ajv | undefined;

/**
 * The validator with every schema added; each is compiled on its first use (compiling all of
 * them took 0.5 s, which `dmac sim` must not pay for the ones it does not use).
 */
function schemas(): Ajv {
  if (!loaded) {
    // allErrors off: validation stops at the first problem (a corrupt document usually has one,
    // and a 10^6-operation manifest must not collect millions). verbose: errors carry the value
    // and the schema, for the messages below.
    // Loaded here, not imported: `dmac sim` validates with the precompiled validators and must
    // not pay for ajv's compiler (~30 ms).
    const { Ajv: AjvClass } = createRequire(import.meta.url)("ajv") as { Ajv: typeof Ajv };
    loaded = new AjvClass({ discriminator: true, allowUnionTypes: true, verbose: true });
    loaded.addKeyword(UINT53_ITEMS);
    for (const n of [...SHARED, ...SCHEMA_NAMES]) {
      const schema = JSON.parse(readFileSync(schemaPath(n), "utf8")) as Record<string, unknown>;
      for (const at of FLAT_NUMBER_ARRAYS[n] ?? []) checkedInALoop(schema, at);
      loaded.addSchema(schema);
    }
  }
  return loaded;
}

/**
 * The flat number lists of big documents, by schema and path of their definition: a 10^6-operation
 * manifest holds 12 million relocation numbers and a million source-map rows, which ajv's code
 * checks element by element at about twice the cost of a plain loop (and the executor's own
 * bounds checks loop over them anyway). Loaded, their `items` (a uint53) becomes UINT53_ITEMS,
 * which checks the same in one loop; the published file keeps the standard keyword.
 */
const FLAT_NUMBER_ARRAYS: Partial<
  Record<SchemaName | (typeof SHARED)[number], readonly (readonly string[])[]>
> = {
  manifest: [["definitions", "numbers"]],
};

function checkedInALoop(schema: Record<string, unknown>, at: readonly string[]): void {
  const def = at.reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], schema) as Record<
    string,
    unknown
  >;
  delete def["items"];
  def[UINT53_ITEMS.keyword] = true;
}

const UINT53_LIMIT = 2 ** 53;

/** `items: uint53` of a flat number list, as one loop (see FLAT_NUMBER_ARRAYS). */
const uint53Items: SchemaValidateFunction = (_schema, data: readonly unknown[], _parent, cxt) => {
  for (let k = 0; k < data.length; k++) {
    const v = data[k];
    if (typeof v === "number" && Number.isInteger(v) && v >= 0 && v < UINT53_LIMIT) continue;
    const instancePath = `${cxt?.instancePath ?? ""}/${k}`;
    uint53Items.errors = [{ keyword: UINT53_ITEMS.keyword, instancePath, params: { value: v } }];
    return false;
  }
  return true;
};

const UINT53_ITEMS = {
  keyword: "dmacUint53Items",
  type: "array",
  schemaType: "boolean",
  errors: true,
  validate: uint53Items,
} satisfies FuncKeywordDefinition;

function validator(name: SchemaName): ValidateFunction {
  return precompiled()[name] ?? schemas().getSchema(`${name}.schema.json`)!;
}

/**
 * The executor's input validators compiled at build time (scripts/compile-schemas.mjs:
 * dist/schema-validators.cjs, beside dist/schemas.js and one directory above the bundled CLI),
 * so `dmac sim` does not load ajv's compiler; none when running from src/ (tests), where the
 * run-time compilation above serves.
 */
function precompiled(): Partial<Record<SchemaName, ValidateFunction>> {
  if (standaloneValidators === undefined) {
    standaloneValidators = {};
    for (const rel of PRECOMPILED_FILES) {
      const url = new URL(rel, import.meta.url);
      if (!existsSync(url)) continue;
      const load = createRequire(import.meta.url);
      standaloneValidators = load(fileURLToPath(url)) as Partial<
        Record<SchemaName, ValidateFunction>
      >;
      break;
    }
  }
  return standaloneValidators;
}

const PRECOMPILED_FILES = ["./schema-validators.cjs", "../schema-validators.cjs"] as const;
let standaloneValidators: Partial<Record<SchemaName, ValidateFunction>> | undefined;

/** `/queues/0/file` -> `$.queues[0].file`. */
function jsonPath(pointer: string, extra?: string): string {
  const parts = pointer === "" ? [] : pointer.slice(1).split("/");
  if (extra !== undefined) parts.push(extra);
  let out = "$";
  for (const raw of parts) {
    const p = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    out += /^\d+$/.test(p)
      ? `[${p}]`
      : /^[A-Za-z_$][\w$]*$/.test(p)
        ? `.${p}`
        : `[${JSON.stringify(p)}]`;
  }
  return out;
}

function kindOf(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return `the string ${JSON.stringify(v.slice(0, 40))}`;
  if (typeof v === "number") return String(v);
  return typeof v === "object" ? "an object" : typeof v;
}

/** JSON types as the executor's messages name them (src/sim/validate-input.ts). */
const ARTICLE: Readonly<Record<string, string>> = {
  array: "an array",
  object: "an object",
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "a boolean",
  null: "null",
};

/** What a (sub)schema expects, in words: "an integer", "a string or null". */
function expected(s: unknown, depth = 0): string {
  const o = (typeof s === "object" && s !== null ? s : {}) as Record<string, unknown>;
  if (o["type"] !== undefined)
    return [o["type"]]
      .flat()
      .map((t) => ARTICLE[String(t)] ?? String(t))
      .join(" or ");
  if ("const" in o) return JSON.stringify(o["const"]);
  if (Array.isArray(o["enum"]))
    return `one of ${o["enum"].map((v) => JSON.stringify(v)).join(", ")}`;
  const ref = o["$ref"];
  if (typeof ref === "string" && depth < 4) {
    const ajv = schemas();
    // A local reference names a definition of one of the schemas (their names are distinct).
    const candidates = ref.startsWith("#")
      ? [...SHARED, ...SCHEMA_NAMES].map((n) => `${n}.schema.json${ref}`)
      : [ref];
    for (const c of candidates) {
      const found = ajv.getSchema(c)?.schema;
      if (found !== undefined) return expected(found, depth + 1);
    }
  }
  const alternatives = o["oneOf"] ?? o["allOf"];
  if (Array.isArray(alternatives) && depth < 4)
    return alternatives.map((a) => expected(a, depth + 1)).join(" or ");
  return "a value";
}

/** An integer range as the executor's messages write it: half-open, [lo, hi). */
function range(parent: Record<string, unknown>): string {
  const integer = parent["type"] === "integer";
  const lo = parent["minimum"] ?? parent["exclusiveMinimum"] ?? "-inf";
  const max = parent["maximum"];
  const hi = typeof max === "number" ? (integer ? `${max + 1})` : `${max}]`) : "inf)";
  return `[${String(lo)}, ${hi}`;
}

/** A readable reason for one ajv error (the schema's own description where it has one). */
function problemOf(e: ErrorObject): SchemaProblem {
  const parent = (e.parentSchema ?? {}) as Record<string, unknown>;
  const p = e.params as Record<string, unknown>;
  const at = jsonPath(e.instancePath);
  switch (e.keyword) {
    case "required": {
      const field = String(p["missingProperty"]);
      const props = (parent["properties"] ?? {}) as Record<string, unknown>;
      return {
        path: jsonPath(e.instancePath, field),
        message: `expected ${expected(props[field])}, found nothing`,
      };
    }
    case "additionalProperties":
      return {
        path: jsonPath(e.instancePath, String(p["additionalProperty"])),
        message: "not a field of this document (schema version 1)",
      };
    case "type":
      return { path: at, message: `expected ${expected(parent)}, found ${kindOf(e.data)}` };
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
      return { path: at, message: `${kindOf(e.data)} is outside ${range(parent)}` };
    case "const":
      return {
        path: at,
        message:
          at === "$.version"
            ? `this dmac reads schema version ${JSON.stringify(p["allowedValue"])}, found ${kindOf(e.data)}`
            : `expected ${JSON.stringify(p["allowedValue"])}, found ${kindOf(e.data)}`,
      };
    case "enum":
      return { path: at, message: `expected ${expected(parent)}, found ${kindOf(e.data)}` };
    case "discriminator":
      return {
        path: jsonPath(e.instancePath, String(p["tag"])),
        message:
          p["error"] === "mapping"
            ? `unknown ${p["tag"] === "op" ? "command" : String(p["tag"])} ${kindOf(p["tagValue"])}`
            : `expected a string ${String(p["tag"])}`,
      };
    case UINT53_ITEMS.keyword: {
      const v = p["value"];
      return {
        path: at,
        message:
          typeof v === "number" && Number.isInteger(v)
            ? `${v} is outside [0, ${UINT53_LIMIT})`
            : `expected an integer, found ${kindOf(v)}`,
      };
    }
    case "multipleOf":
      return {
        path: at,
        message: `${kindOf(e.data)} is not ${String(p["multipleOf"])}-byte aligned`,
      };
    default: {
      const about = typeof parent["description"] === "string" ? ` (${parent["description"]})` : "";
      return { path: at, message: `${kindOf(e.data)} ${e.message ?? e.keyword}${about}` };
    }
  }
}

/** The problems of `json` against schema `name`; empty when it matches. */
export function validateDocument(name: SchemaName, json: unknown): SchemaProblem[] {
  const validate = validator(name);
  if (validate(json)) return [];
  return (validate.errors ?? []).map(problemOf);
}

/**
 * The structural check of an executor input: undefined when `json` matches the manifest or trace
 * schema, else DMAC6011 naming `file`, the JSON path of the first problem and why.
 */
export function checkExecutorInput(
  kind: "manifest" | "trace",
  json: unknown,
  file = `${kind}.json`,
): Diagnostic | undefined {
  const first = validateDocument(kind, json)[0];
  return first ? diag("DMAC6011", undefined, [file, first.path, first.message]) : undefined;
}
