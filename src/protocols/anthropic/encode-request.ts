// IR request → POST {base}/v1/messages body for an Anthropic-protocol upstream.
//
// Not forwarded, because the protocol has no such parameter: frequency/presence penalties, seed,
// logprobs, `strict` on tools, reasoning `exclude`, routing. When thinking is on, temperature and
// top_k are left out and top_p below 0.95 too (the protocol refuses them with thinking). What the
// client asked for and the upstream does not get is named in the attempt's `Unsent` where it is left out.
//
// Not named, because nothing the upstream could use is lost: another vendor's call signatures (no
// field; Gemini's own state), a document's `filename` and a JSON schema's `name` (labels with no slot
// here), `reasoning.exclude` (the client face hides the reasoning), `parallel_tool_calls: false`
// beside tool choice `none` (no calls to make). A temperature above 1 is clamped, not dropped.

import type { Message, Request, ToolChoice, ToolDefinition, WebSearchSettings } from "../../ir/request.ts";
import { encodeThinking, type WireThinking } from "../shared/claude-thinking.ts";
import { asksForReasoning, leaveOutSettings, Unsent } from "../shared/dropped-fields.ts";
import { approximateLocation, leaveOutLimits } from "../shared/web-search.ts";
import type { UpstreamCall, UpstreamTarget } from "../types.ts";
import { cacheControlField } from "./cache-control.ts";
import { encodeMessages } from "./encode-content.ts";
import { JSON_TOOL, JSON_TOOL_NAME } from "./json-mode.ts";

/** Used only when neither the client nor the catalog gives an output limit (the protocol requires one). */
const FALLBACK_MAX_TOKENS = 4096;

export function encodeRequest(req: Request, target: UpstreamTarget, unsent = new Unsent()): UpstreamCall {
  const maxTokens = req.maxOutputTokens ?? target.maxOutputTokens ?? FALLBACK_MAX_TOKENS;
  const body: Record<string, unknown> = { model: target.model, max_tokens: maxTokens };

  const system = req.system
    .filter((block) => block.text.length > 0)
    .map((block) => ({ type: "text", text: block.text, ...cacheControlField(block.cacheControl) }));
  if (system.length > 0) body.system = system;
  body.messages = encodeMessages(req.messages, unsent);
  leaveOutSettings(unsent, req, ["frequencyPenalty", "presencePenalty", "seed", "logprobs", "verbosity"]);

  const asked = encodeThinking(req.reasoning, maxTokens);
  // The upstream refuses thinking beside a tool turn that does not open with its signed thinking (a
  // chat client that drops reasoning_details): thinking is then off for this call, and named as
  // dropped (`reasoning`), rather than the upstream's 400 reaching the client.
  const thinking = isOn(asked.thinking) && toolTurnUnsigned(req.messages) ? undefined : asked.thinking;
  const effort = asked.effort;
  const thinkingOn = isOn(thinking);
  if (thinking) body.thinking = thinking;
  // Asked for but not sent: off for this call (above), or `max_tokens` leaves no room for the
  // smallest budget (claude-thinking.ts).
  else unsent.add("reasoning", asksForReasoning(req));

  const tools: object[] = req.tools.map((tool) => encodeTool(tool, unsent));
  if (req.webSearch) tools.push(webSearchTool(req.webSearch, unsent));
  let toolChoice = encodeToolChoice(req.toolChoice, req.parallelToolCalls);
  const outputConfig: Record<string, unknown> = {};
  if (effort) outputConfig.effort = effort;
  const format = req.responseFormat;
  if (format?.type === "json_schema") {
    outputConfig.format = { type: "json_schema", schema: format.schema };
    unsent.add("response_format.json_schema.description", format.description !== undefined);
  }
  if (format?.type === "json_object") {
    tools.push(JSON_TOOL);
    // Forcing a tool is refused together with thinking, and would shut out the client's own tools.
    if (req.tools.length === 0 && !thinkingOn) toolChoice = { type: "tool", name: JSON_TOOL_NAME };
  }
  if (tools.length > 0) {
    body.tools = tools;
    if (toolChoice) body.tool_choice = toolChoice;
  }
  if (Object.keys(outputConfig).length > 0) body.output_config = outputConfig;

  if (req.stopSequences.length > 0) body.stop_sequences = req.stopSequences;
  Object.assign(body, sampling(req, thinkingOn, unsent));
  if (req.user !== undefined) body.metadata = { user_id: req.user };
  if (target.stream) body.stream = true;
  return { path: "/v1/messages", body };
}

/** temperature, top_p and top_k, of which the protocol refuses all but a top_p ≥ 0.95 while thinking is on. */
function sampling(req: Request, thinkingOn: boolean, unsent: Unsent): Record<string, number> {
  const out: Record<string, number> = {};
  if (req.temperature !== undefined) {
    if (thinkingOn) unsent.add("temperature");
    else out.temperature = Math.min(1, Math.max(0, req.temperature));
  }
  if (req.topP !== undefined) {
    if (thinkingOn && req.topP < 0.95) unsent.add("top_p");
    else out.top_p = req.topP;
  }
  if (req.topK !== undefined) {
    if (thinkingOn) unsent.add("top_k");
    else out.top_k = req.topK;
  }
  return out;
}

function isOn(thinking: WireThinking | undefined): boolean {
  return thinking !== undefined && thinking.type !== "disabled";
}

/**
 * The last assistant turn calls tools but would not open with thinking the upstream can check: a
 * signed thinking block or a redacted one (unsigned thinking and empty text are not sent:
 * encode-content.ts).
 */
function toolTurnUnsigned(messages: Message[]): boolean {
  const turn = messages.findLast((m) => m.role === "assistant");
  if (!turn?.content.some((block) => block.type === "tool_call")) return false;
  const first = turn.content.find(
    (block) =>
      !(block.type === "thinking" && !block.signature) && !(block.type === "text" && block.text === ""),
  );
  return first?.type !== "thinking" && first?.type !== "redacted_thinking";
}

function encodeTool(tool: ToolDefinition, unsent: Unsent): object {
  unsent.add("tools[].strict", tool.strict === true);
  // The protocol needs an object schema; a schema-less tool (`{}`) is an object with any properties.
  const schema =
    tool.parameters.type === undefined ? { type: "object", ...tool.parameters } : tool.parameters;
  return {
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    input_schema: schema,
    ...cacheControlField(tool.cacheControl),
  };
}

function encodeToolChoice(choice: ToolChoice | undefined, parallel: boolean | undefined): object | undefined {
  const single = parallel === false ? { disable_parallel_tool_use: true } : {};
  switch (choice?.type) {
    case undefined:
      return parallel === false ? { type: "auto", ...single } : undefined;
    case "auto":
      return { type: "auto", ...single };
    case "required":
      return { type: "any", ...single };
    case "tool":
      return { type: "tool", name: choice.name, ...single };
    case "none":
      return { type: "none" };
  }
}

/** Anthropic's web search server tool with the limits it takes (the context size: §13c). */
function webSearchTool(search: WebSearchSettings, unsent: Unsent): Record<string, unknown> {
  leaveOutLimits(unsent, search, ["contextSize"]);
  const tool: Record<string, unknown> = { type: "web_search_20250305", name: "web_search" };
  if (search.maxUses !== undefined) tool.max_uses = search.maxUses;
  if (search.allowedDomains) tool.allowed_domains = search.allowedDomains;
  if (search.blockedDomains) tool.blocked_domains = search.blockedDomains;
  if (search.userLocation) tool.user_location = approximateLocation(search.userLocation);
  return tool;
}
