// Client → IR: `generationConfig`, with the API's limits (docs/architecture.md §8) enforced at the edge (a
// 400 naming the field, such as `generationConfig.topP`).
//
// Structured output: `responseSchema` needs a responseMimeType other than text/plain;
// `responseJsonSchema` needs application/json and excludes `responseSchema`. application/json with a
// schema → IR json_schema, without → json_object. Other output types (text/x.enum, XML…) have no IR
// form: the mime type (and its schema) are dropped and named in `ignored`.
//
// Output media settings (speech, images, mediaResolution…) and responseModalities other than TEXT
// are dropped and named in `ignored`.

import { invalid } from "../../ir/errors.ts";
import type { ReasoningSettings, ResponseFormat } from "../../ir/request.ts";
import { checkJsonSchema } from "../shared/json-schema.ts";
import {
  expectArray,
  expectObject,
  expectString,
  type Json,
  optionalBoolean,
  optionalNumber,
  optionalString,
} from "../shared/validate.ts";
import { reasoningFromThinkingConfig } from "./map-reasoning.ts";
import { camelName, field } from "./read-field.ts";
import { geminiSchemaToJsonSchema, readGeminiJsonSchema } from "./schema.ts";

/** The most candidates Gemini answers (2.5: "the supported range is from 1 (inclusive) to 9 (exclusive)"). */
const MAX_CANDIDATES = 8;

export interface DecodedGenerationConfig {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  stopSequences: string[];
  presencePenalty?: number;
  frequencyPenalty?: number;
  seed?: number;
  responseFormat?: ResponseFormat;
  logprobs?: { topLogprobs?: number };
  reasoning?: ReasoningSettings;
  candidateCount?: number;
}

/** Fields read by this decoder (under either spelling); every other field is reported as ignored. */
const READ = new Set([
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
]);

const AT = "generationConfig";

export function decodeGenerationConfig(value: unknown, ignored: Set<string>): DecodedGenerationConfig {
  if (value === undefined || value === null) return { stopSequences: [] };
  const config = expectObject(value, AT);
  for (const key of Object.keys(config)) {
    const name = camelName(key);
    if (!READ.has(name) && config[key] !== null) ignored.add(`${AT}.${name}`);
  }
  const read = (name: string) => field(config, name);
  // Several candidates: answered by a content-generation upstream (relayed), refused on a translation.
  // Gemini answers at most 8 (its 400 past that names no field).
  const candidates = optionalNumber(read("candidateCount"), `${AT}.candidateCount`, {
    integer: true,
    min: 1,
    max: MAX_CANDIDATES,
  });
  const decoded: DecodedGenerationConfig = {
    candidateCount: candidates !== undefined && candidates > 1 ? candidates : undefined,
    temperature: optionalNumber(read("temperature"), `${AT}.temperature`, { min: 0, max: 2 }),
    topP: optionalNumber(read("topP"), `${AT}.topP`, { min: 0, max: 1 }),
    topK: optionalNumber(read("topK"), `${AT}.topK`, { integer: true, min: 0 }),
    maxOutputTokens: optionalNumber(read("maxOutputTokens"), `${AT}.maxOutputTokens`, {
      integer: true,
      min: 1,
    }),
    stopSequences: decodeStopSequences(read("stopSequences")),
    presencePenalty: optionalNumber(read("presencePenalty"), `${AT}.presencePenalty`, {
      min: -2,
      maxExclusive: 2,
    }),
    frequencyPenalty: optionalNumber(read("frequencyPenalty"), `${AT}.frequencyPenalty`, {
      min: -2,
      maxExclusive: 2,
    }),
    seed: optionalNumber(read("seed"), `${AT}.seed`, { integer: true }),
    responseFormat: decodeResponseFormat(config, ignored),
    logprobs: decodeLogprobs(config),
  };
  const thinking = read("thinkingConfig");
  if (thinking !== undefined && thinking !== null)
    decoded.reasoning = reasoningFromThinkingConfig(thinking, `${AT}.thinkingConfig`);
  decodeModalities(read("responseModalities"), ignored);
  for (const key of Object.keys(decoded) as Array<keyof DecodedGenerationConfig>)
    if (decoded[key] === undefined) delete decoded[key];
  return decoded;
}

function decodeStopSequences(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const at = `${AT}.stopSequences`;
  const list = expectArray(value, at).map((item, i) => expectString(item, `${at}[${i}]`));
  if (list.length > 5) throw invalid(at, "must contain at most 5 sequences");
  return list;
}

function decodeResponseFormat(config: Json, ignored: Set<string>): ResponseFormat | undefined {
  const mimeType = optionalString(field(config, "responseMimeType"), `${AT}.responseMimeType`)
    ?.trim()
    .toLowerCase();
  const schema = field(config, "responseSchema");
  const jsonSchema = field(config, "responseJsonSchema");
  const hasSchema = schema !== undefined && schema !== null;
  if (jsonSchema !== undefined && jsonSchema !== null) {
    const at = `${AT}.responseJsonSchema`;
    if (hasSchema) throw invalid(at, "cannot be combined with responseSchema");
    if (mimeType !== "application/json") throw invalid(at, "requires responseMimeType application/json");
    return { type: "json_schema", schema: readGeminiJsonSchema(jsonSchema, at) };
  }
  if (hasSchema) {
    const at = `${AT}.responseSchema`;
    if (mimeType === undefined || mimeType === "text/plain")
      throw invalid(at, "requires a responseMimeType other than text/plain");
    const converted = geminiSchemaToJsonSchema(schema, at);
    checkJsonSchema(converted, at);
    if (mimeType === "application/json") return { type: "json_schema", schema: converted };
    ignored.add(`${AT}.responseMimeType`);
    ignored.add(at);
    return undefined;
  }
  if (mimeType === "application/json") return { type: "json_object" };
  if (mimeType !== undefined && mimeType !== "text/plain") ignored.add(`${AT}.responseMimeType`);
  return undefined;
}

function decodeLogprobs(config: Json): { topLogprobs?: number } | undefined {
  const enabled = optionalBoolean(field(config, "responseLogprobs"), `${AT}.responseLogprobs`);
  const top = optionalNumber(field(config, "logprobs"), `${AT}.logprobs`, { integer: true, min: 1, max: 20 });
  if (top !== undefined && enabled !== true)
    throw invalid(`${AT}.logprobs`, "requires responseLogprobs: true");
  if (enabled !== true) return undefined;
  return top === undefined ? {} : { topLogprobs: top };
}

function decodeModalities(value: unknown, ignored: Set<string>): void {
  if (value === undefined || value === null) return;
  const at = `${AT}.responseModalities`;
  const list = expectArray(value, at).map((item, i) => expectString(item, `${at}[${i}]`).toUpperCase());
  // IMAGE output comes only together with TEXT (docs/architecture.md §8).
  if (list.includes("IMAGE") && !list.includes("TEXT"))
    throw invalid(at, "IMAGE must be used together with TEXT");
  if (list.some((modality) => modality !== "TEXT")) ignored.add(at);
}
