// The canonical request every client protocol decodes into and every upstream protocol encodes from.
// It holds what one protocol can say that another can use; protocol-only details that cannot cross
// (and are not relayed) are dropped at decode time and named in `ignored`.

/** Prompt-cache marker (messages-protocol `cache_control`), kept so same-family upstreams keep caching. */
export interface CacheControl {
  type: "ephemeral";
  ttl?: "5m" | "1h";
}

/** Where the bytes of an image, audio clip or document come from. */
export type MediaSource =
  | { kind: "base64"; mediaType: string; data: string }
  | { kind: "url"; url: string; mediaType?: string }
  | { kind: "file"; fileId: string; mediaType?: string; filename?: string };

export interface TextBlock {
  type: "text";
  text: string;
  cacheControl?: CacheControl;
  citations?: Citation[];
}

export interface ImageBlock {
  type: "image";
  source: MediaSource;
  /** chat `image_url.detail`, Gemini `mediaResolution` (low | high | auto). */
  detail?: string;
  cacheControl?: CacheControl;
}

export interface AudioBlock {
  type: "audio";
  /** base64 data; `mediaType` like audio/wav, audio/mp3. */
  source: MediaSource;
  cacheControl?: CacheControl;
}

export interface DocumentBlock {
  type: "document";
  /** PDF or other file bytes, or plain text (`{kind:"text"}`). */
  source: MediaSource | { kind: "text"; text: string; mediaType: "text/plain" };
  title?: string;
  context?: string;
  filename?: string;
  citations?: boolean;
  cacheControl?: CacheControl;
}

export interface ToolCallBlock {
  type: "tool_call";
  /** Call id; made by the gateway when an upstream has none (Gemini may omit it). */
  id: string;
  name: string;
  /** The arguments as JSON text, exactly as produced (may be invalid JSON from some models). */
  arguments: string;
  /** Gemini `thoughtSignature` carried on a functionCall part; must come back unchanged. */
  signature?: string;
  cacheControl?: CacheControl;
}

export interface ToolResultBlock {
  type: "tool_result";
  toolCallId: string;
  /** Function name; Gemini needs it, the others only carry the call id (keep the map). */
  name?: string;
  content: Array<TextBlock | ImageBlock | DocumentBlock>;
  isError?: boolean;
  cacheControl?: CacheControl;
}

export interface ThinkingBlock {
  type: "thinking";
  /** May be empty while `signature` is set: such blocks must still be replayed (docs/architecture.md §10). */
  text: string;
  signature?: string;
}

export interface RedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}

export type ContentBlock =
  | TextBlock
  | ImageBlock
  | AudioBlock
  | DocumentBlock
  | ToolCallBlock
  | ToolResultBlock
  | ThinkingBlock
  | RedactedThinkingBlock;

export type Citation = Record<string, unknown> & { type: string };

export interface Message {
  role: "user" | "assistant";
  content: ContentBlock[];
}

export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  /** chat `function.strict`. */
  strict?: boolean;
  cacheControl?: CacheControl;
  /**
   * A custom tool (Responses API `custom`, chat-completions `type: "custom"`): its input is free
   * text, not JSON. Upstreams without custom tools see a function whose one parameter, `input`,
   * holds that text (`parameters` says so); the two OpenAI protocols turn calls of it back into
   * custom calls. `format` is in the Responses API's shape (a grammar's `syntax` and `definition`
   * beside its `type`). See src/protocols/shared/custom-tools.ts.
   */
  custom?: { format?: Record<string, unknown> };
  /**
   * A tool of a Responses API `namespace` group (Codex's tool groups): other protocols have no
   * groups, so it goes to every upstream as a tool of its own named `<group>__<tool>` (`name`),
   * and the Responses face turns calls of it back into calls naming the group.
   */
  namespace?: { group: string; tool: string; description?: string };
}

export type ToolChoice =
  | { type: "auto" }
  | { type: "none" }
  | { type: "required" }
  | { type: "tool"; name: string };

export type ResponseFormat =
  | { type: "text" }
  | { type: "json_object" }
  | {
      type: "json_schema";
      schema: Record<string, unknown>;
      name?: string;
      description?: string;
      strict?: boolean;
    };

export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh";

export interface ReasoningSettings {
  /** false = reasoning explicitly off (messages `thinking.type=disabled`, Gemini budget 0). */
  enabled?: boolean;
  effort?: ReasoningEffort;
  /** Token budget for reasoning (messages `budget_tokens`, Gemini `thinkingBudget`; -1 = dynamic). */
  budgetTokens?: number;
  /** Reasoning happens but is not shown to the client (chat `reasoning.exclude`). */
  exclude?: boolean;
  /** messages `thinking.type = adaptive`: the model decides. */
  adaptive?: boolean;
}

/**
 * Web search run by the upstream itself (messages `web_search_20250305` tool, Gemini `googleSearch`
 * tool, chat `web_search_options`, Responses `web_search` tool). Each field is what one of them can
 * limit; a target that cannot names it dropped (docs/translation.md §13c).
 */
export interface WebSearchSettings {
  maxUses?: number;
  allowedDomains?: string[];
  blockedDomains?: string[];
  userLocation?: { city?: string; region?: string; country?: string; timezone?: string };
  /** chat / Responses `search_context_size`. */
  contextSize?: "low" | "medium" | "high";
}

/** Routing fields of the chat protocol: `provider.routing`, `model_routing_config` (docs/architecture.md §7). */
export interface RoutingRequest {
  type?: "priority" | "round_robin" | "least_latency";
  primaryFactor?: "cost" | "speed" | "quality";
  providers?: string[];
  /** "true" | "false" | a provider id. */
  fallback?: string;
  availableModels?: string[];
  preference?: string;
}

export interface Request {
  /** Catalog model id the client asked for (`<provider>/<model_name>`). */
  model: string;
  system: TextBlock[];
  messages: Message[];
  tools: ToolDefinition[];
  toolChoice?: ToolChoice;
  /** false = at most one tool call per turn. */
  parallelToolCalls?: boolean;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  seed?: number;
  stopSequences: string[];
  responseFormat?: ResponseFormat;
  reasoning?: ReasoningSettings;
  /**
   * The reasoning summary the client asked for (Responses `reasoning.summary`): echoed in the
   * answer's settings. It steers nothing: a translation shows the thinking whenever a model gives it.
   */
  reasoningSummary?: "auto" | "concise" | "detailed";
  logprobs?: { topLogprobs?: number };
  /**
   * More than one candidate answer (content-generation `generationConfig.candidateCount` > 1; chat
   * `n` stays 1). The IR answer has one candidate, so only a relay to a content-generation upstream
   * can serve it; a translated route refuses it (src/gateway/route.ts).
   */
  candidateCount?: number;
  webSearch?: WebSearchSettings;
  /** How long an answer to aim for (chat `verbosity`, Responses `text.verbosity`). */
  verbosity?: "low" | "medium" | "high";
  /** Opaque end-user id (messages `metadata.user_id`, chat `user`). */
  user?: string;
  stream: boolean;
  /** The client asked to see usage in the stream (chat `stream_options.include_usage` / `usage.include`). */
  streamUsage: boolean;
  routing?: RoutingRequest;
  /** Request fields the gateway accepted but will not forward; reported in `x-switchyard-ignored`. */
  ignored: string[];
}
