// The Responses API wire shapes this module writes, as the openai SDK types them
// (openai/resources/responses/responses.d.ts). Only what the encoders build is typed here; decoders
// read `unknown`.

export interface WireOutputText {
  type: "output_text";
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}

export interface WireMessageItem {
  id: string;
  type: "message";
  status: "in_progress" | "completed" | "incomplete";
  role: "assistant";
  content: WireOutputText[];
}

export interface WireSummaryText {
  type: "summary_text";
  text: string;
}

export interface WireReasoningItem {
  id: string;
  type: "reasoning";
  summary: WireSummaryText[];
  /** Carries the thinking's signature (any vendor's) opaquely: see reasoning-item.ts. */
  encrypted_content?: string;
  status?: "in_progress" | "completed" | "incomplete";
}

export interface WireFunctionCallItem {
  id: string;
  type: "function_call";
  status: "in_progress" | "completed" | "incomplete";
  call_id: string;
  name: string;
  /** The group of a namespace group's tool (`name` is then the tool's name within it). */
  namespace?: string;
  arguments: string;
}

export interface WireCustomToolCallItem {
  id: string;
  type: "custom_tool_call";
  status: "in_progress" | "completed" | "incomplete";
  call_id: string;
  name: string;
  namespace?: string;
  input: string;
}

/** An image the model generated: the image generation tool's call, `result` the base64 image. */
export interface WireImageGenerationItem {
  id: string;
  type: "image_generation_call";
  status: "in_progress" | "completed";
  result: string | null;
  output_format?: string;
}

/** A web search the upstream ran: `action.query` and the pages it found as `sources`. */
export interface WireWebSearchItem {
  id: string;
  type: "web_search_call";
  status: "in_progress" | "searching" | "completed" | "failed";
  action: { type: "search"; query: string; sources: Array<{ type: "url"; url: string }> };
}

export type WireOutputItem =
  | WireMessageItem
  | WireReasoningItem
  | WireFunctionCallItem
  | WireCustomToolCallItem
  | WireImageGenerationItem
  | WireWebSearchItem;

export interface WireUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type WireStatus = "completed" | "incomplete" | "failed" | "in_progress";

export interface WireResponse {
  id: string;
  object: "response";
  created_at: number;
  status: WireStatus;
  background: false;
  /** Unix seconds when the response completed; null while in progress, failed or incomplete. */
  completed_at: number | null;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: "max_output_tokens" | "content_filter" } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  model: string;
  output: WireOutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: null;
  reasoning: { effort: string | null; summary: string | null };
  store: false;
  temperature: number | null;
  frequency_penalty: number;
  presence_penalty: number;
  text: { format: Record<string, unknown> };
  tool_choice: unknown;
  tools: unknown[];
  top_p: number | null;
  truncation: "disabled";
  usage: WireUsage | null;
  metadata: Record<string, string>;
}
