// Shared pieces of the content-generation protocol tests: fixtures, requests, and a tiny HTTP server
// that answers the official @google/genai client with bytes produced by the encoders.

import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Request } from "../../../src/ir/request.ts";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import type { EncodeContext, SseEvent } from "../../../src/protocols/types.ts";

const FIXTURES = new URL("../../fixtures/gemini/", import.meta.url);

export function fixture<T = any>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, FIXTURES), "utf8")) as T;
}

/** The `data:` events of a recorded SSE stream, as an SSE parser hands them over. */
export function sseFixture(name: string): SseEvent[] {
  return readFileSync(new URL(name, FIXTURES), "utf8")
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== "")
    .map((block) => ({ data: block.replace(/^data: ?/, "") }));
}

/** Parses the `data:` chunks an encoder wrote. */
export function parseSse(text: string): any[] {
  return text
    .split("\n\n")
    .filter((block) => block !== "")
    .map((block) => {
      if (!block.startsWith("data: ")) throw new Error(`not an SSE data event: ${block}`);
      return JSON.parse(block.slice(6));
    });
}

export function irRequest(overrides: Partial<Request> = {}): Request {
  return {
    model: "google/gemini-2.5-flash",
    system: [],
    messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
    tools: [],
    stopSequences: [],
    stream: false,
    streamUsage: true,
    ignored: [],
    ...overrides,
  };
}

export function encodeContext(request: Partial<Request> = {}): EncodeContext {
  return {
    id: "gen-01TESTID",
    model: "google/gemini-2.5-flash",
    created: 1750000000,
    request: irRequest(request),
  };
}

export function blockEvents(
  index: number,
  start: Extract<StreamEvent, { type: "block_start" }>["block"],
  ...deltas: Array<Extract<StreamEvent, { type: "block_delta" }>["delta"]>
): StreamEvent[] {
  return [
    { type: "block_start", index, block: start },
    ...deltas.map((delta): StreamEvent => ({ type: "block_delta", index, delta })),
    { type: "block_stop", index },
  ];
}

export interface TestServer {
  baseUrl: string;
  /** Bodies received, in order. */
  bodies: unknown[];
  /** Paths received, in order. */
  paths: string[];
  close(): Promise<void>;
}

/** An HTTP server whose every answer is written by `answer`. */
export async function startServer(
  answer: (req: IncomingMessage, res: ServerResponse, body: unknown) => void,
): Promise<TestServer> {
  const bodies: unknown[] = [];
  const paths: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const body = text === "" ? undefined : JSON.parse(text);
      bodies.push(body);
      paths.push(req.url ?? "");
      answer(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    bodies,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
