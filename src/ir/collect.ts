import type { OutputBlock, Response } from "./response.ts";
import type { StreamEvent } from "./stream.ts";
import { emptyUsage } from "./usage.ts";

/** Assembles a whole response from stream events (used when the client did not ask to stream). */
export function collectResponse(events: Iterable<StreamEvent>): Response {
  const collector = new ResponseCollector();
  for (const event of events) collector.add(event);
  return collector.response;
}

/** Incremental form of collectResponse, for callers that see events one at a time. */
export class ResponseCollector {
  readonly response: Response = { id: "", model: "", content: [], finishReason: "stop", usage: emptyUsage() };
  private readonly blocks = new Map<number, OutputBlock>();
  add(event: StreamEvent): void {
    applyEvent(this.response, this.blocks, event);
  }
}

function applyEvent(response: Response, blocks: Map<number, OutputBlock>, event: StreamEvent): void {
  switch (event.type) {
    case "start":
      if (event.id) response.id = event.id;
      if (event.model) response.model = event.model;
      return;
    case "block_start": {
      const b = event.block;
      const block: OutputBlock =
        b.type === "text"
          ? { type: "text", text: "" }
          : b.type === "thinking"
            ? { type: "thinking", text: "" }
            : b.type === "redacted_thinking"
              ? { type: "redacted_thinking", data: b.data }
              : b.type === "image"
                ? { type: "image", source: { kind: "base64", mediaType: b.mediaType, data: b.data } }
                : b.type === "web_search"
                  ? b.search
                  : { type: "tool_call", id: b.id, name: b.name, arguments: "", signature: b.signature };
      if (block.type === "tool_call" && block.signature === undefined) delete block.signature;
      blocks.set(event.index, block);
      response.content.push(block);
      return;
    }
    case "block_delta": {
      const block = blocks.get(event.index);
      if (!block) return;
      const d = event.delta;
      if (d.type === "text" && block.type === "text") block.text += d.text;
      else if (d.type === "thinking" && block.type === "thinking") block.text += d.text;
      else if (d.type === "signature" && (block.type === "thinking" || block.type === "tool_call"))
        block.signature = (block.signature ?? "") + d.signature;
      else if (d.type === "tool_arguments" && block.type === "tool_call") block.arguments += d.json;
      else if (d.type === "citation" && block.type === "text")
        block.citations = [...(block.citations ?? []), d.citation];
      return;
    }
    case "block_stop":
      return;
    case "finish":
      response.finishReason = event.reason;
      if (event.stopSequence !== undefined) response.stopSequence = event.stopSequence;
      if (event.message !== undefined) response.finishMessage = event.message;
      return;
    case "usage":
      response.usage = event.usage;
      return;
    case "logprobs":
      if (response.logprobs) response.logprobs.push(...event.logprobs);
      else response.logprobs = [...event.logprobs];
      return;
    case "error":
      throw event.error;
  }
}
