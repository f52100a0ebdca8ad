// Mutations of a valid request: on its JSON tree (a value replaced by one of another type or a limit
// value, a member deleted or added, an array grown), and on its bytes (cut short, invalid UTF-8,
// a byte-order mark, duplicate keys, garbage).

import type { Rng } from "./prng.ts";
import type { Face } from "./templates.ts";
import { deepValue, FIELD_NAMES, longString, NUMBERS, oddValue, STRINGS } from "./values.ts";

type Segment = string | number;
type Json = Record<string, unknown>;

export interface TreeMutation {
  /** Where it applied, as the decoders name fields (`messages[2].content`). */
  path: string;
  /** The first member name on that path: what a 400 about it should name. */
  field: string;
  what: string;
}

/** Fields each protocol reads, at the top level and in its nested settings objects. */
const KNOWN: Record<Face, Array<[string[], string[]]>> = {
  chat: [
    [
      [],
      [
        "model",
        "messages",
        "max_tokens",
        "max_completion_tokens",
        "temperature",
        "top_p",
        "n",
        "stop",
        "stream",
        "stream_options",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "response_format",
        "reasoning_effort",
        "reasoning",
        "logprobs",
        "top_logprobs",
        "logit_bias",
        "seed",
        "user",
        "metadata",
        "frequency_penalty",
        "presence_penalty",
        "functions",
        "function_call",
        "provider",
        "model_routing_config",
        "usage",
        "modalities",
        "audio",
        "prediction",
        "store",
        "service_tier",
        "web_search_options",
        "verbosity",
      ],
    ],
    [["reasoning"], ["effort", "max_tokens", "enabled", "exclude"]],
    [["stream_options"], ["include_usage"]],
    [
      ["provider", "routing"],
      ["type", "primary_factor", "providers", "fallback"],
    ],
    [["model_routing_config"], ["available_models", "preference"]],
    [["response_format"], ["type", "json_schema"]],
  ],
  messages: [
    [
      [],
      [
        "model",
        "messages",
        "max_tokens",
        "system",
        "temperature",
        "top_p",
        "top_k",
        "stop_sequences",
        "stream",
        "tools",
        "tool_choice",
        "thinking",
        "output_config",
        "output_format",
        "metadata",
        "service_tier",
        "context_management",
        "container",
        "mcp_servers",
      ],
    ],
    [["thinking"], ["type", "budget_tokens", "display"]],
    [["output_config"], ["effort", "format"]],
    [["tool_choice"], ["type", "name", "disable_parallel_tool_use"]],
    [["metadata"], ["user_id"]],
  ],
  responses: [
    [
      [],
      [
        "model",
        "input",
        "instructions",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "max_output_tokens",
        "temperature",
        "top_p",
        "top_logprobs",
        "stream",
        "text",
        "reasoning",
        "user",
        "safety_identifier",
        "metadata",
        "store",
        "include",
        "previous_response_id",
        "conversation",
        "background",
        "prompt",
        "prompt_cache_key",
        "service_tier",
        "truncation",
        "max_tool_calls",
      ],
    ],
    [["reasoning"], ["effort", "summary", "generate_summary"]],
    [["text"], ["format", "verbosity"]],
    [
      ["text", "format"],
      ["type", "name", "schema", "strict", "description"],
    ],
  ],
  gemini: [
    [
      [],
      [
        "contents",
        "systemInstruction",
        "system_instruction",
        "tools",
        "toolConfig",
        "generationConfig",
        "generation_config",
        "safetySettings",
        "cachedContent",
        "model",
      ],
    ],
    [
      ["generationConfig"],
      [
        "temperature",
        "topP",
        "topK",
        "candidateCount",
        "maxOutputTokens",
        "stopSequences",
        "presencePenalty",
        "frequencyPenalty",
        "seed",
        "responseMimeType",
        "responseSchema",
        "responseJsonSchema",
        "responseLogprobs",
        "logprobs",
        "thinkingConfig",
        "responseModalities",
        "speechConfig",
        "mediaResolution",
      ],
    ],
    [
      ["generationConfig", "thinkingConfig"],
      ["thinkingBudget", "thinkingLevel", "includeThoughts"],
    ],
    [
      ["toolConfig", "functionCallingConfig"],
      ["mode", "allowedFunctionNames"],
    ],
  ],
};

/** What a grown array may add, at most (the "huge" cases send bodies past the gateway's limits). */
const GROWN_BYTES = 32 * 1024 * 1024;

/** Applies 1 to 3 tree mutations to a copy of `body`. */
export function mutateTree(rng: Rng, body: Json, face: Face): { body: Json; mutations: TreeMutation[] } {
  const copy = structuredClone(body);
  const mutations: TreeMutation[] = [];
  for (let n = rng.range(1, 3); n > 0; n--) mutations.push(mutateOnce(rng, copy, face));
  return { body: copy, mutations };
}

function mutateOnce(rng: Rng, root: Json, face: Face): TreeMutation {
  const op = rng.weighted<string>([
    [6, "replace"],
    [2, "delete"],
    [3, "unknown"],
    [5, "known"],
    [1, "grow"],
    [1, "wrap"],
  ]);
  if (op === "known") {
    const [where, names] = rng.pick(KNOWN[face]);
    const parent = ensurePath(root, where);
    const name = rng.pick(names);
    parent[name] = rng.chance(0.5) ? rng.pick(NUMBERS) : oddValue(rng);
    return mutation([...where, name], `set known field to ${describe(parent[name])}`, face);
  }
  if (op === "unknown") {
    const objects = paths(root).filter(({ value }) => isObject(value));
    const { path, value } = rng.pick([{ path: [], value: root as unknown }, ...objects]);
    const name = rng.pick(FIELD_NAMES);
    (value as Json)[name] = oddValue(rng, 1);
    return mutation([...path, name], `add unknown field ${JSON.stringify(name)}`, face);
  }
  const all = paths(root);
  if (all.length === 0) return mutateOnce(rng, root, face);
  const { path, value, parent, key } = rng.pick(all);
  switch (op) {
    case "delete":
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete (parent as Json)[key as string];
      return mutation(path, "delete", face);
    case "grow":
      if (Array.isArray(value) && value.length > 0) {
        const item = value[0];
        // Bounded by size: an item already grown (an array of 10,000, or a long string) repeated
        // 10,000 times is past what JSON.stringify can spell, a crash of the fuzzer, not a case.
        const itemBytes = JSON.stringify(item)?.length ?? 4;
        const times = Math.min(rng.pick([100, 1000, 10_000]), Math.ceil(GROWN_BYTES / itemBytes));
        for (let i = 0; i < times; i++) value.push(structuredClone(item));
        return mutation(path, `grow array by ${times}`, face);
      }
      setAt(parent, key, longString(rng, rng.pick([10_000, 200_000])));
      return mutation(path, "replace with a long string", face);
    case "wrap":
      setAt(parent, key, rng.chance(0.5) ? [value] : { value });
      return mutation(path, "wrap in a container", face);
    default: {
      const replacement = replacementFor(rng, value);
      setAt(parent, key, replacement);
      return mutation(path, `replace with ${describe(replacement)}`, face);
    }
  }
}

/** A value of another type than `value`, or a limit value of the same type. */
function replacementFor(rng: Rng, value: unknown): unknown {
  if (typeof value === "number" && rng.chance(0.5)) return rng.pick(NUMBERS);
  if (typeof value === "string" && rng.chance(0.3)) return rng.pick(STRINGS);
  if (rng.chance(0.05)) return deepValue(rng.pick([100, 1000]));
  return oddValue(rng);
}

function mutation(path: Segment[], what: string, face: Face): TreeMutation {
  return { path: formatPath(path), field: fieldName(path, face), what };
}

/** The top-level member a mutation is under, as the decoders spell it. */
function fieldName(path: Segment[], face: Face): string {
  const first = String(path[0] ?? "body");
  return face === "gemini" ? first.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) : first;
}

export function formatPath(path: Segment[]): string {
  let out = "";
  for (const segment of path)
    out += typeof segment === "number" ? `[${segment}]` : out === "" ? segment : `.${segment}`;
  return out || "body";
}

interface Located {
  path: Segment[];
  value: unknown;
  parent: Json | unknown[];
  key: Segment;
}

/** Every member and element of the tree (depth-bounded), with where it sits. */
function paths(root: Json): Located[] {
  const out: Located[] = [];
  const walk = (value: unknown, path: Segment[]) => {
    if (path.length > 12) return;
    if (Array.isArray(value)) {
      value.slice(0, 20).forEach((item, i) => {
        out.push({ path: [...path, i], value: item, parent: value, key: i });
        walk(item, [...path, i]);
      });
    } else if (isObject(value)) {
      for (const [key, item] of Object.entries(value)) {
        out.push({ path: [...path, key], value: item, parent: value, key });
        walk(item, [...path, key]);
      }
    }
  };
  walk(root, []);
  return out;
}

function ensurePath(root: Json, where: string[]): Json {
  let at = root;
  for (const name of where) {
    if (!isObject(at[name])) at[name] = {};
    at = at[name] as Json;
  }
  return at;
}

function setAt(parent: Json | unknown[], key: Segment, value: unknown): void {
  if (Array.isArray(parent)) parent[key as number] = value;
  else parent[key as string] = value;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}… (${text.length} chars)` : text;
}

// ── Byte-level mutations ─────────────────────────────────────────────────────────────────────────

const INVALID_UTF8 = [
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0x80],
  [0x80],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
];

/** A byte-level mutation of a JSON body. */
export function mutateBytes(rng: Rng, text: string): { body: Buffer; what: string } {
  const bytes = Buffer.from(text);
  const op = rng.weighted<string>([
    [4, "truncate"],
    [3, "invalid-utf8"],
    [1, "bom"],
    [2, "duplicate-key"],
    [1, "flip"],
    [1, "trailing"],
    [2, "literal"],
    [2, "replace"],
    [1, "deep"],
  ]);
  switch (op) {
    case "truncate": {
      const at = rng.int(Math.max(1, bytes.length));
      return { body: bytes.subarray(0, at), what: `cut at byte ${at} of ${bytes.length}` };
    }
    case "invalid-utf8": {
      const seq = Buffer.from(rng.pick(INVALID_UTF8));
      // Inside a string when possible: right after a quote.
      const quotes = [...text.matchAll(/"/g)].map((m) => m.index ?? 0);
      const at = quotes.length > 0 ? rng.pick(quotes) + 1 : rng.int(bytes.length);
      return {
        body: Buffer.concat([bytes.subarray(0, at), seq, bytes.subarray(at)]),
        what: `invalid UTF-8 ${seq.toString("hex")} at byte ${at}`,
      };
    }
    case "bom":
      return { body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]), what: "byte-order mark" };
    case "duplicate-key": {
      const member = rng.pick([
        '"model":"local/echo-1",',
        '"model":"nope/none",',
        '"model":null,',
        '"messages":[],',
        '"contents":5,',
        '"max_tokens":-1,',
        '"stream":"yes",',
        '"generationConfig":{"thinkingConfig":{"thinkingBudget":100000}},',
      ]);
      const at = text.indexOf("{") + 1;
      const twice = rng.chance(0.5);
      const body = twice
        ? `${text.slice(0, -1)},${member.slice(0, -1)}}`
        : `${text.slice(0, at)}${member}${text.slice(at)}`;
      return { body: Buffer.from(body), what: `duplicate key ${member} ${twice ? "last" : "first"}` };
    }
    case "flip": {
      const copy = Buffer.from(bytes);
      const at = rng.int(copy.length);
      copy[at] = rng.int(256);
      return { body: copy, what: `byte ${at} set to ${copy[at]}` };
    }
    case "trailing":
      return {
        body: Buffer.concat([bytes, Buffer.from(rng.pick(["}", ",", "]}", " garbage", "\u0000", "{}"]))]),
        what: "trailing bytes",
      };
    case "literal": {
      const swap = rng.pick([
        ["1", "NaN"],
        ["1", "Infinity"],
        ["1", "123456789012345678901234567890123456789"],
        ["1", "1e99999"],
        ["1", "-0"],
        ["1", "01"],
        ['"', "'"],
        ["true", "True"],
        [":", ": /* c */"],
      ]);
      return { body: Buffer.from(text.replace(swap[0], swap[1])), what: `${swap[0]} → ${swap[1]}` };
    }
    case "deep": {
      // As text: deeper than the test's own JSON.stringify can go.
      const depth = rng.pick([5000, 50_000]);
      const open = rng.chance(0.5) ? "[" : '{"a":';
      const close = open === "[" ? "]" : "}";
      const name = rng.pick(["metadata", "messages", "contents", "tools", "unknown"]);
      const at = text.indexOf("{") + 1;
      const member = `"${name}":${open.repeat(depth)}1${close.repeat(depth)},`;
      return {
        body: Buffer.from(text.slice(0, at) + member + text.slice(at)),
        what: `${name} nested ${depth} deep`,
      };
    }
    default: {
      const body = rng.pick([
        "",
        " ",
        "null",
        "[]",
        "1",
        '"text"',
        "{",
        "{}",
        '{"model":}',
        '{"\\u006dodel":"local/echo-1","messages":[{"role":"user","content":"hi"}],"max_tokens":5}',
        '{"model":"local/echo-1","messages":[{"role":"user","content":"\\ud800"}],"max_tokens":5}',
        '{"model":"local/echo-1","messages":[{"role":"user","content":"\\u0000"}],"max_tokens":5,"\\u0000":1}',
        '[{"model":"local/echo-1"}]',
      ]);
      return { body: Buffer.from(body), what: `body replaced with ${JSON.stringify(body)}` };
    }
  }
}
