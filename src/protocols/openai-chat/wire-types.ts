// The chat-completions wire shapes this module writes, as the openai SDK types them
// (openai/resources/chat/completions), plus the reasoning fields that OpenAI-compatible vendors add
// (`reasoning`, `reasoning_details`: docs/architecture.md §8; `extra_content.google.thought_signature`:
// Gemini's OpenAI-compatible endpoint). Only what the encoders build is typed here; decoders read `unknown`.

export interface ReasoningTextDetail {
  type: "reasoning.text";
  text: string;
  signature?: string;
  format: string;
  index: number;
}

export interface ReasoningEncryptedDetail {
  type: "reasoning.encrypted";
  data: string;
  /** OpenRouter: the tool call this encrypted item (a Gemini thought signature) belongs to. */
  id?: string;
  format: string;
  index: number;
}

export type ReasoningDetail = ReasoningTextDetail | ReasoningEncryptedDetail;

export interface WireFunctionToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
  extra_content?: { google: { thought_signature: string } };
}

/** A call of a custom tool: its input is free text. */
export interface WireCustomToolCall {
  id: string;
  type: "custom";
  custom: { name: string; input: string };
}

export type WireToolCall = WireFunctionToolCall | WireCustomToolCall;

export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
  completion_tokens_details: { reasoning_tokens: number };
}

export type WireFinishReason = "stop" | "length" | "tool_calls" | "content_filter";

export type { WireErrorBody } from "../shared/openai-errors.ts";

export type WireContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string; detail?: string } }
  | { type: "input_audio"; input_audio: { data: string; format: string } }
  | { type: "file"; file: { file_id?: string; file_data?: string; filename?: string } };

export type WireMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | WireContentPart[] }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: WireToolCall[];
      reasoning_details?: ReasoningDetail[];
    }
  | { role: "tool"; tool_call_id: string; content: string };
