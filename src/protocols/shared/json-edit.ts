// Targeted edits of a JSON object's top-level members, on the text itself. Same-protocol relays use
// it to replace `model` / `id` and drop gateway-only fields without re-encoding the body, so every
// byte they do not touch (unknown fields, number spellings, signatures) reaches the other side as sent.
//
// An edit means what parsing, editing and printing the object would mean, whatever the text: a key
// written with escapes (`"\u006dodel"`) is the same key, and a key written twice is edited in every
// place it appears (JSON parsers disagree on which of two duplicates wins; after the edit, none can
// see an unedited one). Held to that by test/protocols/shared/json-edit.fuzz.test.ts.

import { escapeRegExp, startsAt } from "./text.ts";

interface MemberSpan {
  /** From the first byte of the key to the last byte of the value. */
  start: number;
  valueStart: number;
  end: number;
}

/** A top-level member: its key as parsed, and where it sits in the text. */
interface Member extends MemberSpan {
  key: string;
}

export interface JsonEdits {
  /** Members to set (value as raw JSON text); added at the end when absent. */
  set?: Record<string, string>;
  /** Members to remove when present. */
  remove?: string[];
  /** Members added at the end when absent (value as raw JSON text); one present keeps its own. */
  fill?: Record<string, string>;
}

/**
 * From this length a text's top-level members are listed in one pass instead of its keys being
 * searched for through the whole text: a client's body of many megabytes is mostly a few long
 * strings, which the member scan jumps over (a native search for their closing quote) where the
 * searches read every character (about 20 ms of a 30 MiB body, BENCHMARKS.md "Session 8").
 */
const LIST_MEMBERS_FROM = 1024 * 1024;

/** Applies the edits to a JSON object text; returns the text unchanged when there is nothing to do. */
export function editJson(text: string, edits: JsonEdits): string {
  const set = edits.set ?? {};
  const setKeys = Object.keys(set);
  const fillKeys = edits.fill ? Object.keys(edits.fill).filter((key) => !Object.hasOwn(set, key)) : [];
  const sought = fillKeys.length > 0 ? [...setKeys, ...fillKeys] : setKeys;
  const long = text.length >= LIST_MEMBERS_FROM;
  const remove = long ? toRemove(edits.remove, set) : removable(text, edits.remove, set);
  // With nothing to remove, the scan may stop as soon as every member to set was found (a stream
  // chunk's `id` and `model` come first, so most of the chunk is never scanned).
  const members = memberList(text, long || remove || sought.length === 0 ? undefined : sought);
  const cuts: Cut[] = [];
  let additions = "";
  for (const key of setKeys) {
    let found = false;
    for (const m of members)
      if (m.key === key) {
        found = true;
        cuts.push({ from: m.valueStart, to: m.end, insert: set[key] });
      }
    if (!found) additions += `${additions ? "," : ""}${JSON.stringify(key)}:${set[key]}`;
  }
  for (const key of fillKeys)
    if (!members.some((m) => m.key === key))
      additions += `${additions ? "," : ""}${JSON.stringify(key)}:${edits.fill?.[key]}`;
  if (remove) for (const span of removalSpans(members, remove)) cuts.push({ ...span, insert: "" });
  if (cuts.length === 0 && additions === "") return text;
  // Members added before the closing brace as one more cut, found in the text as it came: a search
  // of the edited text would first copy it whole (a long body's join of pieces). With members
  // removed, only the edited text says whether any is left to put a comma after.
  if (additions && !remove) {
    cuts.push(closingCut(text, additions));
    additions = "";
  }

  // Usually in order already (the members set come in the text's order): sorted only when not.
  if (!inOrder(cuts)) cuts.sort((a, b) => a.from - b.from);
  let out = "";
  let at = 0;
  for (const cut of cuts) {
    out += text.slice(at, cut.from) + cut.insert;
    at = cut.to;
  }
  out += text.slice(at);
  if (additions) {
    const close = out.lastIndexOf("}");
    out = `${out.slice(0, close)}${holdsNothing(out, close) ? "" : ","}${additions}${out.slice(close)}`;
  }
  return out;
}

interface Cut {
  from: number;
  to: number;
  insert: string;
}

/** The members added (raw `"key":value` text) just before the object's closing brace. */
function closingCut(text: string, additions: string): Cut {
  const close = text.lastIndexOf("}");
  return { from: close, to: close, insert: `${holdsNothing(text, close) ? "" : ","}${additions}` };
}

/** The object closed at `close` has no member (whitespace may come before it, as a client wrote it). */
function holdsNothing(text: string, close: number): boolean {
  return /^\s*\{\s*$/.test(text.slice(0, close));
}

function inOrder(cuts: Cut[]): boolean {
  for (let i = 1; i < cuts.length; i++) if (cuts[i].from < cuts[i - 1].from) return false;
  return true;
}

/** The opening of the last text `setMembers` edited, and that opening edited. */
export interface OpeningMemo {
  opening?: string;
  edited?: string;
}

/**
 * Sets members, like editJson with `set` only, for texts that tend to open alike: a stream's events
 * repeat the same opening (`{"id":"…","object":…,"created":…,"model":"…"`). When a text opens with
 * exactly the bytes of the last one edited, through the end of the last member set, those bytes
 * parse to the same members, so their edited form is reused and the rest of the text is not read.
 */
export function setMembers(text: string, set: Record<string, string>, memo: OpeningMemo): string {
  // The rest is not even looked at for a second spelling of a key set: the texts are an upstream's
  // stream events, which a JSON encoder writes with each member once (unlike a client's body,
  // which editJson handles whatever it holds).
  if (memo.opening !== undefined && startsAt(text, memo.opening))
    return memo.edited + text.slice(memo.opening.length);
  const keys = Object.keys(set);
  const members = memberList(text, keys);
  // One is absent (added at the end), or written twice: the whole edit, and nothing to remember.
  if (members.length !== keys.length || new Set(members.map((m) => m.key)).size !== keys.length)
    return editJson(text, { set });
  let edited = "";
  let at = 0;
  for (const m of members) {
    edited += text.slice(at, m.valueStart) + set[m.key];
    at = m.end;
  }
  // The opening takes in the byte after the last value too, so that it ends where a value ends:
  // `"n":1` must not pass for the opening of `"n":12`.
  memo.opening = text.slice(0, at + 1);
  memo.edited = edited + text.slice(at, at + 1);
  return edited + text.slice(at);
}

/** The members to remove, none set as well; undefined when there are none. */
function toRemove(keys: string[] | undefined, set: Record<string, string>): Set<string> | undefined {
  const wanted = keys?.filter((key) => !Object.hasOwn(set, key)) ?? [];
  return wanted.length > 0 ? new Set(wanted) : undefined;
}

/** Past this many keys to remove, removable() lists the members instead of searching for the keys. */
const SEARCHED_KEYS_MAX = 16;

/** The members to remove that the text may hold (none set as well); undefined when there are none. */
function removable(
  text: string,
  keys: string[] | undefined,
  set: Record<string, string>,
): Set<string> | undefined {
  if (!keys || keys.length === 0) return undefined;
  const wanted = keys.filter((key) => !Object.hasOwn(set, key));
  if (wanted.length === 0) return undefined;
  // Many keys (a relay removing the members an upstream refuses, named by the client): the text's
  // members are listed once instead, where a search for all of them would cost a pass per key.
  if (wanted.length > SEARCHED_KEYS_MAX) return new Set(wanted);
  // A key absent from the text in every spelling cannot be a member (a \u escape can spell anything,
  // \/ a solidus): one search for all of them, through the text once.
  const search = keySearch(wanted);
  search.lastIndex = 0;
  const remove = new Set<string>();
  for (let found = search.exec(text); found; found = search.exec(text)) {
    const spelling = found[0];
    if (spelling.startsWith("\\")) return new Set(wanted);
    remove.add(JSON.parse(spelling) as string);
    if (remove.size === wanted.length) break;
  }
  return remove.size > 0 ? remove : undefined;
}

/**
 * Whether text[from…] may hold one of `keys` as a member name: it holds the key's own JSON spelling,
 * or an escape that could spell it otherwise (`\u…` spells any character, `\/` a solidus). A false
 * answer is certain; a true one is a maybe, which the caller settles by scanning.
 */
function mayHoldKeys(text: string, from: number, keys: readonly string[]): boolean {
  const pattern = keySearch(keys);
  pattern.lastIndex = from;
  return pattern.test(text);
}

/**
 * One search for all of mayHoldKeys' spellings, made once per key list. A regular expression, not a
 * substring search per spelling: V8 looks for a short quoted key in JSON, full of quotes, several
 * times slower than its regular expressions do (a third of a relayed answer's edit went there).
 */
function keySearch(keys: readonly string[]): RegExp {
  if (keys.length === 1) {
    let pattern = keySearches.get(keys[0]);
    if (!pattern) {
      pattern = searchFor(keys);
      // Single keys come from the client's body too (the fields a relay strips): bounded.
      if (keySearches.size >= 1000) keySearches.clear();
      keySearches.set(keys[0], pattern);
    }
    return pattern;
  }
  // Lists are the members a relay sets, a handful in all: compared in place, no name made for them.
  for (const known of listSearches) if (sameKeys(known.keys, keys)) return known.pattern;
  const pattern = searchFor(keys);
  listSearches.unshift({ keys: [...keys], pattern });
  if (listSearches.length > 16) listSearches.pop();
  return pattern;
}

const keySearches = new Map<string, RegExp>();
const listSearches: Array<{ keys: readonly string[]; pattern: RegExp }> = [];

function searchFor(keys: readonly string[]): RegExp {
  const spellings = ["\\\\u", ...keys.map((key) => escapeRegExp(JSON.stringify(key)))];
  if (keys.some((key) => key.includes("/"))) spellings.push("\\\\/");
  return new RegExp(spellings.join("|"), "g");
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Spans that remove the named members and their separators without overlapping: a removed member
 * takes everything up to the next member's key; removed members after the last kept one go together
 * with the comma that follows that kept member.
 */
function removalSpans(members: Member[], remove: Set<string>): Array<{ from: number; to: number }> {
  let lastKept = -1;
  members.forEach((m, i) => {
    if (!remove.has(m.key)) lastKept = i;
  });
  const spans: Array<{ from: number; to: number }> = [];
  for (let i = 0; i < lastKept; i++)
    if (remove.has(members[i].key)) spans.push({ from: members[i].start, to: members[i + 1].start });
  const trailing = members.slice(lastKept + 1);
  if (trailing.length > 0) {
    const from = lastKept >= 0 ? members[lastKept].end : trailing[0].start;
    spans.push({ from, to: trailing[trailing.length - 1].end });
  }
  return spans;
}

/** Applies edits to the object held by one top-level member (`message` of a messages-stream event). */
export function editJsonMember(text: string, key: string, edits: JsonEdits): string {
  // Every occurrence of a key written twice, last first so that earlier spans stay where they are.
  const held = memberList(text).filter((m) => m.key === key && text[m.valueStart] === "{");
  let out = text;
  for (const m of held.reverse())
    out = out.slice(0, m.valueStart) + editJson(out.slice(m.valueStart, m.end), edits) + out.slice(m.end);
  return out;
}

/**
 * Applies `edit` to each item of the array held by one top-level member (`choices` of a chat answer)
 * and writes the edited items back in place, the bytes between them kept. An item for which `edit`
 * returns undefined is removed (the array's other items and their separators stay as they were).
 */
export function editJsonArrayItems(
  text: string,
  key: string,
  edit: (item: string, index: number) => string | undefined,
): string {
  const held = memberList(text).filter(
    (m) => m.key === key && text.charCodeAt(m.valueStart) === OPEN_BRACKET,
  );
  let out = text;
  for (const m of held.reverse())
    out = out.slice(0, m.valueStart) + editArray(out.slice(m.valueStart, m.end), edit) + out.slice(m.end);
  return out;
}

/** Appends `item` (raw JSON text) to the array held by one top-level member; the rest is kept. */
export function appendJsonArrayItem(text: string, key: string, item: string): string {
  const held = memberList(text).filter(
    (m) => m.key === key && text.charCodeAt(m.valueStart) === OPEN_BRACKET,
  );
  let out = text;
  for (const m of held.reverse()) {
    const close = m.end - 1;
    const empty = skipSpace(out, m.valueStart + 1) === close;
    out = `${out.slice(0, close)}${empty ? "" : ","}${item}${out.slice(close)}`;
  }
  return out;
}

function editArray(array: string, edit: (item: string, index: number) => string | undefined): string {
  const items: Array<{ from: number; to: number; text: string | undefined }> = [];
  for (let i = skipSpace(array, 1); array.charCodeAt(i) !== CLOSE_BRACKET; ) {
    const end = skipValue(array, i);
    items.push({ from: i, to: end, text: edit(array.slice(i, end), items.length) });
    i = skipSpace(array, end);
    if (array.charCodeAt(i) === COMMA) i = skipSpace(array, i + 1);
  }
  const kept = items.filter((item) => item.text !== undefined);
  if (kept.length < items.length) return `[${kept.map((item) => item.text).join(",")}]`;
  let out = "";
  let at = 0;
  for (const item of items) {
    out += array.slice(at, item.from) + item.text;
    at = item.to;
  }
  return out + array.slice(at);
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

/** The top-level members of a JSON object text by key (the last of a key written twice, as JSON.parse). */
export function topLevelMembers(text: string, until?: readonly string[]): Map<string, MemberSpan> {
  const members = new Map<string, MemberSpan>();
  for (const { key, start, valueStart, end } of memberList(text, until))
    members.set(key, { start, valueStart, end });
  return members;
}

/**
 * The top-level members of a JSON object text, in order. With `until`, only those members are
 * listed, and the scan stops once the rest of the text cannot hold one of them (again: a key written
 * twice is then listed twice), looked at as each is first found: a key still missing then is absent,
 * and a member the caller sets is added without the rest of a long body being walked.
 */
function memberList(text: string, until?: readonly string[]): Member[] {
  const members: Member[] = [];
  const keys = new KeyReader(text);
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) throw new SyntaxError("not a JSON object");
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_BRACE) return members;
  for (;;) {
    const start = i;
    const keyEnd = skipString(text, i);
    const key = until ? keys.match(start, keyEnd, until) : keys.read(start, keyEnd);
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) throw new SyntaxError(`expected ':' at ${i}`);
    const valueStart = skipSpace(text, i + 1);
    const end = skipValue(text, valueStart);
    if (key !== undefined) {
      // (The members listed with `until` are a few: looked through, no set kept of them.)
      const first = until !== undefined && !members.some((m) => m.key === key);
      members.push({ key, start, valueStart, end });
      if (first && !mayHoldKeys(text, end, until)) return members;
    }
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === COMMA) {
      i = skipSpace(text, i + 1);
      continue;
    }
    if (c === CLOSE_BRACE) return members;
    throw new SyntaxError(`expected ',' or '}' at ${i}`);
  }
}

/** Reads member keys, decoding only those that hold an escape (most keys are plain text). */
class KeyReader {
  private readonly text: string;
  /** The next backslash at or after the last key read (Infinity when none is left). */
  private nextEscape = -1;

  constructor(text: string) {
    this.text = text;
  }

  /** The key of the string text[start, end). */
  read(start: number, end: number): string {
    if (!this.escaped(start, end)) return this.text.slice(start + 1, end - 1);
    return JSON.parse(this.text.slice(start, end)) as string;
  }

  /** The key if it is one of `wanted`, compared in place (no string made for any other key). */
  match(start: number, end: number, wanted: readonly string[]): string | undefined {
    if (this.escaped(start, end)) {
      const key = this.read(start, end);
      return wanted.includes(key) ? key : undefined;
    }
    const length = end - start - 2;
    for (const key of wanted) if (key.length === length && this.text.startsWith(key, start + 1)) return key;
    return undefined;
  }

  /** Whether text[start, end) holds a backslash; keys are read in order, so one forward search serves all. */
  private escaped(start: number, end: number): boolean {
    if (this.nextEscape < start) {
      const at = this.text.indexOf("\\", start);
      this.nextEscape = at < 0 ? Number.POSITIVE_INFINITY : at;
    }
    return this.nextEscape < end;
  }
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

function skipString(text: string, i: number): number {
  if (text.charCodeAt(i) !== QUOTE) throw new SyntaxError(`expected a string at ${i}`);
  // Jump from quote to quote (a native search); a quote after an odd run of backslashes is escaped.
  for (let from = i + 1; ; ) {
    const quote = text.indexOf('"', from);
    if (quote < 0) throw new SyntaxError("unterminated string");
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/**
 * Where the JSON value that begins at `at` ends (the index after it), or -1 when none begins there or
 * it is cut short. Works on a one-byte (latin1) view of UTF-8 bytes as well: no byte of a multi-byte
 * character is a quote, a bracket or a backslash.
 */
export function valueEnd(text: string, at: number): number {
  try {
    return skipValue(text, at);
  } catch {
    return -1;
  }
}

/** The characters that shape a JSON value: quotes and brackets (skipValue). */
const STRUCTURAL = /["{}[\]]/g;

function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return skipString(text, i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    // From one structural character to the next by a native search (`test` moves lastIndex past the
    // match without making a match object): what lies between (numbers, commas, spaces) is never read
    // a character at a time. An embedding answer is mostly numbers: its 16 vectors of 1536 took
    // 0.6 ms a scan character by character, 0.03 ms so.
    let depth = 0;
    STRUCTURAL.lastIndex = i;
    while (STRUCTURAL.test(text)) {
      const at = STRUCTURAL.lastIndex - 1;
      const ch = text.charCodeAt(at);
      if (ch === QUOTE) STRUCTURAL.lastIndex = skipString(text, at);
      else if (ch === OPEN_BRACE || ch === OPEN_BRACKET) depth++;
      else if (--depth === 0) return at + 1;
    }
    throw new SyntaxError("unterminated value");
  }
  let j = i;
  while (j < text.length && !endsScalar(text.charCodeAt(j))) j++;
  if (j === i) throw new SyntaxError(`expected a value at ${i}`);
  return j;
}

/** What ends a number, true, false or null. */
function endsScalar(c: number): boolean {
  return c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c);
}
