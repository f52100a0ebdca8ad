// IR model-turn blocks → Gemini parts (a response's candidate, or a model turn sent upstream).
//
// - text → {text}; empty text is never sent.
// - thinking with text, when thoughts are shown → {text, thought: true, thoughtSignature?}. A client
//   sees every thought when it asked for them (`all`); an upstream gets back only signed ones
//   (`signed`): Gemini needs its own signed thoughts, and another model's reasoning is no Gemini thought.
// - a thinking block whose text is empty (or hidden) but which carries a signature → the signature
//   goes on the text part right after it, as Gemini itself places it; with no text part right after,
//   it goes out alone as {text: "", thoughtSignature}, the shape Gemini ends a stream with.
//   decode-contents.ts reads both back into the same IR, so signatures survive every round trip.
// - tool_call → {functionCall: {id, name, args}, thoughtSignature?}; args is the parsed object.
// - media blocks (only in model turns sent upstream) → inlineData / fileData.
// - redacted_thinking has no Gemini form and is left out.

import type { ContentBlock } from "../../ir/request.ts";
import type { OutputBlock } from "../../ir/response.ts";
import { argumentsObject } from "../shared/tool-arguments.ts";
import { mediaPart } from "./media.ts";
import type { GeminiPart } from "./wire-types.ts";

export function functionCallPart(
  id: string,
  name: string,
  args: string,
  signature: string | undefined,
): GeminiPart {
  const part: GeminiPart = { functionCall: { id, name, args: argumentsObject(args) } };
  if (signature !== undefined) part.thoughtSignature = signature;
  return part;
}

/** Which thinking text goes out as thought parts. */
export type ThoughtPolicy = "all" | "signed" | "none";

/** Blocks without a part (a web search the upstream ran) are left out: see map-citations.ts. */
export function partsFromOutput(
  blocks: readonly (ContentBlock | OutputBlock)[],
  thoughts: ThoughtPolicy,
): GeminiPart[] {
  const parts: GeminiPart[] = [];
  let pendingSignature: string | undefined;
  const flush = () => {
    if (pendingSignature !== undefined) parts.push({ text: "", thoughtSignature: pendingSignature });
    pendingSignature = undefined;
  };
  for (const block of blocks) {
    if (block.type === "text") {
      if (block.text === "") continue;
      const part: GeminiPart = { text: block.text };
      if (pendingSignature !== undefined) part.thoughtSignature = pendingSignature;
      pendingSignature = undefined;
      parts.push(part);
    } else if (block.type === "thinking") {
      flush();
      const shown = thoughts === "all" || (thoughts === "signed" && block.signature !== undefined);
      if (block.text !== "" && shown) {
        const part: GeminiPart = { text: block.text, thought: true };
        if (block.signature !== undefined) part.thoughtSignature = block.signature;
        parts.push(part);
      } else if (block.signature !== undefined) {
        pendingSignature = block.signature;
      }
    } else if (block.type === "tool_call") {
      flush();
      parts.push(functionCallPart(block.id, block.name, block.arguments, block.signature));
    } else if (block.type === "image" || block.type === "audio" || block.type === "document") {
      // Media in a model turn (a replayed generated image): only requests carry these.
      flush();
      parts.push(mediaPart(block));
    }
  }
  flush();
  return parts;
}
