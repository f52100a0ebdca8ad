import type { GeminiGrounding } from "./map-citations.ts";

// The content-generation wire shapes this module writes and reads, as @google/genai types them
// (GenerateContentResponse, Candidate, Part, GenerateContentResponseUsageMetadata). Only the fields
// the gateway produces or consumes are listed; upstream bodies are read defensively, never trusted.

export interface GeminiFunctionCall {
  id?: string;
  name?: string;
  args?: Record<string, unknown>;
  /** Streamed arguments (Vertex `streamFunctionCallArguments`). */
  partialArgs?: GeminiPartialArg[];
  willContinue?: boolean;
}

export interface GeminiPartialArg {
  jsonPath?: string;
  stringValue?: string;
  numberValue?: number;
  boolValue?: boolean;
  nullValue?: string;
  willContinue?: boolean;
}

export interface GeminiFunctionResponse {
  id?: string;
  name: string;
  response: Record<string, unknown>;
}

export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: GeminiFunctionCall;
  functionResponse?: GeminiFunctionResponse;
}

export interface GeminiContent {
  role: "user" | "model";
  parts: GeminiPart[];
}

export interface GeminiUsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  totalTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
}

export interface GeminiLogprobsResult {
  topCandidates: Array<{ candidates: Array<{ token: string; logProbability: number }> }>;
  chosenCandidates: Array<{ token: string; logProbability: number }>;
}

export interface GeminiCandidate {
  content: { role: "model"; parts?: GeminiPart[] };
  finishReason?: string;
  index: number;
  logprobsResult?: GeminiLogprobsResult;
  avgLogprobs?: number;
  groundingMetadata?: GeminiGrounding;
  finishMessage?: string;
}

export interface GeminiResponse {
  candidates: GeminiCandidate[];
  usageMetadata?: GeminiUsageMetadata;
  modelVersion: string;
  createTime?: string;
  responseId: string;
}

export interface GeminiErrorBody {
  error: { code: number; message: string; status: string };
}
