// The key tables of docs/configuration.md, generated from the schema: every key with its type, its
// default and its description. `npm run docs:config` writes them between the markers; a test fails
// when the file differs, so the docs and the schema cannot drift. A key without a description makes
// the generator throw: every key is documented or the build is red.

import { z } from "zod";
import { modelRecordSchema } from "../catalog/schema.ts";
import { configSchema } from "./schema.ts";

interface Row {
  key: string;
  type: string;
  default: string;
  meaning: string;
}

/** The tables, by marker name. */
export function keyTables(): Record<string, string> {
  return {
    "config-keys": table(rowsOf(configSchema, "", new Set([modelRecordSchema]))),
    "model-keys": table(rowsOf(modelRecordSchema, "", new Set())),
  };
}

/** `markdown` with each `<!-- NAME:begin -->…<!-- NAME:end -->` section replaced by its table. */
export function withKeyTables(markdown: string): string {
  let out = markdown;
  for (const [name, body] of Object.entries(keyTables())) {
    const begin = `<!-- ${name}:begin (generated from the schema by \`npm run docs:config\`; edit the schema, not this table) -->`;
    const end = `<!-- ${name}:end -->`;
    const from = out.indexOf(begin);
    const to = out.indexOf(end);
    if (from === -1 || to < from) throw new Error(`docs: markers for ${name} are missing:\n${begin}\n${end}`);
    out = `${out.slice(0, from + begin.length)}\n${body}\n${out.slice(to)}`;
  }
  return out;
}

function table(rows: Row[]): string {
  const cell = (s: string) => s.replaceAll("|", "\\|");
  const lines = ["| Key | Type | Default | Meaning |", "|---|---|---|---|"];
  for (const r of rows)
    lines.push(`| \`${cell(r.key)}\` | ${cell(r.type)} | ${cell(r.default)} | ${cell(r.meaning)} |`);
  return lines.join("\n");
}

/** What a schema is once its wrappers (optional, default, preprocess…) are looked through. */
interface Unwrapped {
  core: z.core.$ZodType;
  meta: z.GlobalMeta;
  optional: boolean;
  defaultValue?: { value: unknown };
}

function unwrap(schema: z.core.$ZodType): Unwrapped {
  let s = schema;
  let meta: z.GlobalMeta = {};
  let optional = false;
  let defaultValue: Unwrapped["defaultValue"];
  for (;;) {
    meta = { ...(z.globalRegistry.get(s) ?? {}), ...meta };
    const def = s._zod.def as z.core.$ZodTypeDef & Record<string, any>;
    if (def.type === "optional" || def.type === "prefault") {
      optional = true;
      s = def.innerType;
    } else if (def.type === "default") {
      optional = true;
      defaultValue ??= { value: def.defaultValue };
      s = def.innerType;
    } else if (def.type === "nullable") {
      s = def.innerType;
    } else if (def.type === "pipe") {
      // A preprocess reads through to its target; a transform is described by its input.
      s = def.in._zod.def.type === "transform" ? def.out : def.in;
    } else return { core: s, meta, optional, defaultValue };
  }
}

function rowsOf(schema: z.core.$ZodType, path: string, stop: Set<z.core.$ZodType>): Row[] {
  const rows: Row[] = [];
  const u = unwrap(schema);
  const def = u.core._zod.def as z.core.$ZodTypeDef & Record<string, any>;
  if (def.type === "object") {
    const shape = def.shape as Record<string, z.core.$ZodType>;
    if (u.meta.docKey) {
      // Every key takes the same value: describe it once, under the placeholder.
      const keys = Object.keys(shape);
      const keyList = `\`${u.meta.docKey}\` is one of ${keys.map((k) => `\`${k}\``).join(", ")}.`;
      if (path) rows.push(row(path, u, "mapping", `${u.meta.description ?? ""} ${keyList}`.trim()));
      rows.push(...rowsOf(shape[keys[0]], join(path, u.meta.docKey), stop));
      return rows;
    }
    if (path && u.meta.description) rows.push(row(path, u, "mapping"));
    for (const [key, child] of Object.entries(shape)) rows.push(...rowsOf(child, join(path, key), stop));
    return rows;
  }
  if (def.type === "array") {
    const element = unwrap(def.element);
    if (element.core._zod.def.type === "object") {
      const record = stop.has(def.element) ? "list of records" : "list of mappings";
      rows.push(row(path, u, record));
      if (!stop.has(def.element)) rows.push(...rowsOf(def.element, `${path}[]`, stop));
      return rows;
    }
    rows.push(row(path, u, `list of ${typeOf(element)}`));
    return rows;
  }
  rows.push(row(path, u, typeOf(u)));
  return rows;
}

function row(key: string, u: Unwrapped, type: string, meaning = u.meta.description): Row {
  if (!meaning) throw new Error(`docs: \`${key}\` has no description in the schema`);
  return { key, type: u.meta.type ?? type, default: defaultOf(u), meaning };
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function typeOf(u: Unwrapped): string {
  if (u.meta.type) return u.meta.type;
  const def = u.core._zod.def as z.core.$ZodTypeDef & Record<string, any>;
  switch (def.type) {
    case "string":
      return "string";
    case "boolean":
      return "`true` or `false`";
    case "number":
      return "number";
    case "enum":
      return Object.values(def.entries as Record<string, string>)
        .map((v) => `\`${v}\``)
        .join(", ");
    case "literal":
      return (def.values as unknown[]).map((v) => `\`${String(v)}\``).join(", ");
    default:
      throw new Error(`docs: no type phrase for a ${def.type}; give the key a meta type`);
  }
}

function defaultOf(u: Unwrapped): string {
  if (u.meta.defaultText) return u.meta.defaultText;
  if (u.meta.default !== undefined) return code(u.meta.default);
  if (u.defaultValue) return code(u.defaultValue.value);
  return u.optional ? "—" : "required";
}

/** A value as it would be written in the YAML file. */
function code(value: unknown): string {
  if (typeof value === "string") return value === "" ? '`""`' : `\`${value}\``;
  if (Array.isArray(value)) return `\`[${value.map(String).join(", ")}]\``;
  if (typeof value === "object" && value !== null) return Object.keys(value).length === 0 ? "`{}`" : "…";
  return `\`${String(value)}\``;
}
