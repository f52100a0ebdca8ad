// Google Vertex AI: Gemini models at the publisher google's paths, in the Gemini API's own bodies (so a
// content-generation client gets a relay), and Anthropic's models at the publisher anthropic's
// rawPredict / streamRawPredict with messages bodies (so a messages client gets a relay). GA `v1`.

import type { PlatformConfig } from "../../config/providers.ts";
import { platformMessagesCall } from "./anthropic-body.ts";
import { bodyModel, noPlatformEndpoint, type ShapeCall } from "./types.ts";

type Vertex = Extract<PlatformConfig, { kind: "google-vertex" }>;

/** The `anthropic_version` Vertex takes. */
export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

export type VertexFamily = "gemini" | "anthropic";

/** Anthropic's models on Vertex are named `claude-…` (optionally `@version`). */
export function vertexFamily(model: string): VertexFamily {
  return /^(publishers\/anthropic\/models\/)?claude/.test(model) ? "anthropic" : "gemini";
}

const GEMINI_PATH = /^\/v1beta\/models\/([^:]+):(.+)$/;

export function vertexShape(providerId: string, vertex: Vertex, family: VertexFamily): ShapeCall {
  const prefix = `/v1/projects/${encodeURIComponent(vertex.project)}/locations/${encodeURIComponent(vertex.location)}/publishers`;
  if (family === "gemini")
    return (call) => {
      const match = GEMINI_PATH.exec(call.path);
      if (!match) throw noPlatformEndpoint(providerId, call.path);
      return { ...call, path: `${prefix}/google/models/${match[1]}:${match[2]}` };
    };
  return (call) => {
    if (call.path === "/v1/messages") {
      const model = modelSegment(bodyModel(call.body) ?? "");
      const method = call.stream ? "streamRawPredict" : "rawPredict";
      const edited = platformMessagesCall(call.body, call.headers, VERTEX_ANTHROPIC_VERSION, ["model"]);
      return { ...call, ...edited, path: `${prefix}/anthropic/models/${model}:${method}` };
    }
    if (call.path === "/v1/messages/count_tokens") {
      // Vertex's Anthropic token counter keeps `model` in the body.
      const edited = platformMessagesCall(call.body, call.headers, VERTEX_ANTHROPIC_VERSION, []);
      return { ...call, ...edited, path: `${prefix}/anthropic/models/count-tokens:rawPredict` };
    }
    throw noPlatformEndpoint(providerId, call.path);
  };
}

/** A model id as one path segment; a version's `@` (`claude-sonnet-4-5@20250929`) stays as Vertex writes it. */
function modelSegment(model: string): string {
  return encodeURIComponent(model).replaceAll("%40", "@");
}
