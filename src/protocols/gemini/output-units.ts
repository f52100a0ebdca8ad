// What a Gemini answer bills besides tokens, read from the answer itself (usageMetadata has no count
// of either): the images it generated (`inlineData` parts with an image/* type, thoughts excluded)
// and the Google Search grounding behind it (`groundingMetadata.webSearchQueries`). docs/translation.md
// ("Billed units") says how each is counted.

import type { Usage } from "../../ir/usage.ts";
import { isObject, type Json } from "../shared/validate.ts";

/** Gemini 1.x and 2.x bill grounding per grounded prompt, later models per search query. */
const PER_PROMPT_GROUNDING = /^(models\/)?gemini-[12]\./;

export class OutputUnits {
  private images = 0;
  private readonly queries = new Set<string>();
  private modelVersion = "";

  /** Reads one response or stream chunk (every chunk of a stream, in order). */
  read(chunk: Json): void {
    if (typeof chunk.modelVersion === "string") this.modelVersion = chunk.modelVersion;
    // Every candidate's (a relayed answer may hold several: candidateCount).
    const candidates = Array.isArray(chunk.candidates) ? chunk.candidates : [];
    for (const candidate of candidates) if (isObject(candidate)) this.readCandidate(candidate);
  }

  private readCandidate(candidate: Json): void {
    const content = candidate.content;
    const parts = isObject(content) && Array.isArray(content.parts) ? content.parts : [];
    for (const part of parts) if (isGeneratedImage(part)) this.images++;
    const grounding = candidate.groundingMetadata;
    // Stream chunks may repeat the metadata: a query counts once however often it is reported.
    if (isObject(grounding) && Array.isArray(grounding.webSearchQueries))
      for (const query of grounding.webSearchQueries) if (typeof query === "string") this.queries.add(query);
  }

  /** `usage` with the counts read so far. */
  apply(usage: Usage): Usage {
    const searches = PER_PROMPT_GROUNDING.test(this.modelVersion)
      ? Math.min(1, this.queries.size)
      : this.queries.size;
    const out: Usage = { ...usage, webSearchRequests: Math.max(usage.webSearchRequests, searches) };
    if (this.images > 0) out.imageOutputs = this.images;
    return out;
  }
}

function isGeneratedImage(part: unknown): boolean {
  if (!isObject(part) || part.thought === true || !isObject(part.inlineData)) return false;
  const type = part.inlineData.mimeType;
  return typeof type === "string" && type.startsWith("image/");
}
