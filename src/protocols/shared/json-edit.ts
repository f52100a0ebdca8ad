// Targeted edits of a JSON object's top-level members, on the text itself. Same-protocol relays use
// it to replace `model` / `id` and drop gateway-only fields without re-encoding the body, so every
// byte they do not touch (unknown fields, number spellings, signatures) reaches the other side as sent.

interface MemberSpan {
  /** From the first byte of the key to the last byte of the value. */
  start: number;
  valueStart: number;
  end: number;
}

export interface JsonEdits {
  /** Members to set (value as raw JSON text); added at the end when absent. */
  set?: Record<string, string>;
  /** Members to remove when present. */
  remove?: string[];
}

/** Applies the edits to a JSON object text; returns the text unchanged when there is nothing to do. */
export function editJson(text: string, edits: JsonEdits): string {
  const set = edits.set ?? {};
  // A key absent from the text cannot be a member (unless spelled with \u escapes: then look properly).
  const mayHold = text.includes("\\u") ? () => true : (key: string) => text.includes(`"${key}"`);
  const remove = new Set((edits.remove ?? []).filter((key) => !(key in set) && mayHold(key)));
  // With nothing to remove, the scan may stop as soon as every member to set was found (a stream
  // chunk's `id` and `model` come first, so most of the chunk is never scanned).
  const members = topLevelMembers(text, remove.size === 0 ? new Set(Object.keys(set)) : undefined);
  const cuts: Array<{ from: number; to: number; insert: string }> = [];
  for (const [key, value] of Object.entries(set)) {
    const m = members.get(key);
    if (m) cuts.push({ from: m.valueStart, to: m.end, insert: value });
  }
  if (remove.size > 0)
    for (const span of removalSpans([...members], remove)) cuts.push({ ...span, insert: "" });
  const additions = Object.entries(set)
    .filter(([key]) => !members.has(key))
    .map(([key, value]) => `${JSON.stringify(key)}:${value}`);
  if (cuts.length === 0 && additions.length === 0) return text;

  cuts.sort((a, b) => a.from - b.from);
  let out = "";
  let at = 0;
  for (const cut of cuts) {
    out += text.slice(at, cut.from) + cut.insert;
    at = cut.to;
  }
  out += text.slice(at);
  if (additions.length > 0) {
    const close = out.lastIndexOf("}");
    const empty = /^\{\s*$/.test(out.slice(0, close));
    out = `${out.slice(0, close)}${empty ? "" : ","}${additions.join(",")}${out.slice(close)}`;
  }
  return out;
}

/**
 * Spans that remove the named members and their separators without overlapping: a removed member
 * takes everything up to the next member's key; removed members after the last kept one go together
 * with the comma that follows that kept member.
 */
function removalSpans(
  members: Array<[string, MemberSpan]>,
  remove: Set<string>,
): Array<{ from: number; to: number }> {
  let lastKept = -1;
  members.forEach(([key], i) => {
    if (!remove.has(key)) lastKept = i;
  });
  const spans: Array<{ from: number; to: number }> = [];
  for (let i = 0; i < lastKept; i++)
    if (remove.has(members[i][0])) spans.push({ from: members[i][1].start, to: members[i + 1][1].start });
  const trailing = members.slice(lastKept + 1);
  if (trailing.length > 0) {
    const from = lastKept >= 0 ? members[lastKept][1].end : trailing[0][1].start;
    spans.push({ from, to: trailing[trailing.length - 1][1].end });
  }
  return spans;
}

/** Applies edits to the object held by one top-level member (`message` of a messages-stream event). */
export function editJsonMember(text: string, key: string, edits: JsonEdits): string {
  const m = topLevelMembers(text).get(key);
  if (!m || text[m.valueStart] !== "{") return text;
  return text.slice(0, m.valueStart) + editJson(text.slice(m.valueStart, m.end), edits) + text.slice(m.end);
}

/**
 * A whole JSON object text parsed natively (what the meter's tap reads); anything else — not JSON,
 * cut short, not an object — is a SyntaxError.
 */
export function parseObject(text: string): Record<string, any> {
  const value = JSON.parse(text);
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new SyntaxError("not a JSON object");
  return value;
}

/** The top-level members of a JSON object text, in order; with `until`, it stops once all are found. */
export function topLevelMembers(text: string, until?: Set<string>): Map<string, MemberSpan> {
  const members = new Map<string, MemberSpan>();
  let i = skipSpace(text, 0);
  if (text[i] !== "{") throw new SyntaxError("not a JSON object");
  i = skipSpace(text, i + 1);
  if (text[i] === "}") return members;
  for (;;) {
    const start = i;
    const keyEnd = skipString(text, i);
    const key = JSON.parse(text.slice(start, keyEnd)) as string;
    i = skipSpace(text, keyEnd);
    if (text[i] !== ":") throw new SyntaxError(`expected ':' at ${i}`);
    const valueStart = skipSpace(text, i + 1);
    const end = skipValue(text, valueStart);
    members.set(key, { start, valueStart, end });
    if (until?.has(key) && [...until].every((k) => members.has(k))) return members;
    i = skipSpace(text, end);
    if (text[i] === ",") {
      i = skipSpace(text, i + 1);
      continue;
    }
    if (text[i] === "}") return members;
    throw new SyntaxError(`expected ',' or '}' at ${i}`);
  }
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

function skipString(text: string, i: number): number {
  if (text[i] !== '"') throw new SyntaxError(`expected a string at ${i}`);
  for (i++; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92)
      i++; // backslash: skip the escaped character
    else if (c === 34) return i + 1;
  }
  throw new SyntaxError("unterminated string");
}

function skipValue(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return skipString(text, i);
  if (c === "{" || c === "[") {
    let depth = 0;
    for (; i < text.length; i++) {
      const ch = text[i];
      if (ch === '"') i = skipString(text, i) - 1;
      else if (ch === "{" || ch === "[") depth++;
      else if (ch === "}" || ch === "]") {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    throw new SyntaxError("unterminated value");
  }
  let j = i;
  while (j < text.length && !",}] \n\r\t".includes(text[j])) j++;
  if (j === i) throw new SyntaxError(`expected a value at ${i}`);
  return j;
}
