// What the conformance matrix asks of every client (docs/compatibility.md): a driver runs the real,
// unmodified client, pointed at the gateway by base URL (or environment) alone, through four cases;
// the matrix (cases.ts) scripts the upstream and judges the outcome. A driver only reports what the
// client gave it.

/** Where a driver sends the client: the gateway's address (a tap in front of it) and a key. */
export interface Gateway {
  /** `http://127.0.0.1:PORT`, no path: each client appends its own (`/v1`, `/v1beta`, none). */
  base: string;
  key: string;
  /** What the gateway answered through the tap so far in this case (a CLI shows no stream pieces). */
  answers: readonly TappedAnswer[];
}

import type { Upstream } from "../e2e/matrix/harness.ts";
import type { TappedAnswer } from "../support/tap.ts";

export interface Turn {
  text: string;
  /** The reasoning the client surfaced (its text or summary), if its protocol shows any. */
  reasoning?: string;
}

/** The one tool every client offers: the model is told to call it for "Oslo". */
export const WEATHER = {
  name: "get_weather",
  description: "Current weather for a city",
  schema: {
    type: "object",
    properties: { city: { type: "string", description: "City name" } },
    required: ["city"],
    additionalProperties: false,
  },
} as const;
export const WEATHER_PROMPT = 'Use get_weather for "Oslo", then tell me what to wear.';
export const weatherIn = (city: string) => `${city}: 4C and snowing`;

/** What an agent's shell tool is asked to run; its output is what get_weather would return. */
export const SHELL_COMMAND = "echo Oslo: 4C and snowing";
/** The prompt naming the agent's shell tool (the local model calls a tool the prompt names). */
export const shellPrompt = (tool: string) => `Use ${tool} to run "${SHELL_COMMAND}"`;

export const PROMPTS = {
  text: "Say hello.",
  stream: "Count to three.",
  reasoning: ["Hello", "And again?"] as const,
};

export interface ClientDriver {
  /** The matrix's row label. */
  name: string;
  /** The npm packages (as installed: an alias such as `openai-7`) whose versions the row shows. */
  packages: string[];
  /** The directory whose node_modules hold them, when not the repository's (the agent clients' cache). */
  installedIn?: string;
  /**
   * What the client's protocol mapping cannot do (so the matrix does not ask it), each with why:
   * `reasoningShown`: it exposes no reasoning; `reasoningReplayed`: it sends no reasoning back;
   * `callIdKept`: it does not send a tool call's id back with its result.
   */
  limits?: { reasoningShown?: string; reasoningReplayed?: string; callIdKept?: string };
  /**
   * An agent whose tools are its own: the tool case has the model call its shell tool to run
   * SHELL_COMMAND (the arguments `args` makes of it), and checks the command's output went back;
   * `tool()` is then handed no tool to run.
   */
  shell?: { tool: string; args: (command: string) => Record<string, unknown> };
  /** The local model for every case (instead of local/echo-1 and, for reasoning, local/think-1), with why. */
  localModel?: { model: string; why: string };
  /** Cases the client cannot be asked of the local models, each with why. */
  localSkip?: Partial<Record<"text" | "stream" | "tool" | "reasoning", string>>;
  /** Columns the client cannot be run against (all their cases shown skipped), each with why. */
  columnsSkipped?: Partial<Record<"local" | Upstream, string>>;
  /**
   * Gateway bugs this client meets, by column and case, each with what is wrong: the case still
   * runs, and is shown skipped with the note while it fails, failed once it passes (so the entry goes
   * when the bug is fixed).
   */
  knownIssues?: Partial<
    Record<"local" | Upstream, Partial<Record<"text" | "stream" | "tool" | "reasoning", string>>>
  >;
  /**
   * It asks for thinking of type `enabled` on every turn: an Anthropic model then opens every answer
   * with signed thinking, and the API refuses a tool turn sent back without it, so the tool case's
   * Anthropic upstream answers the call after such thinking too.
   */
  thinksEveryTurn?: boolean;
  /** It names its agent session (X-Claude-Code-Session-Id): the lookup must show it. */
  sessionId?: boolean;
  /** How long one case may take (default 30 s; a CLI starts a process per turn). */
  timeoutMs?: number;
  /** Cases the client cannot be asked (the matrix shows them skipped), each with why. */
  skip?: Partial<Record<"text" | "stream" | "tool" | "reasoning", string>>;
  text(gw: Gateway, model: string): Promise<string>;
  /** The text and how many pieces it arrived in. */
  stream(gw: Gateway, model: string): Promise<{ text: string; deltas: number }>;
  /**
   * The tool loop: WEATHER offered with WEATHER_PROMPT; the client runs `run` when the model calls
   * it and sends the result back; returns the model's final answer.
   */
  tool(gw: Gateway, model: string, run: (city: string) => string): Promise<string>;
  /** Two turns with reasoning asked of the model, the second carrying the first's answer back. */
  reasoning(gw: Gateway, model: string): Promise<{ first: Turn; second: Turn }>;
}

/** The city a tool call named, from its arguments (an object or JSON text). */
export function cityOf(args: unknown): string {
  const value = typeof args === "string" ? JSON.parse(args) : args;
  const city = (value as { city?: unknown } | null)?.city;
  if (typeof city !== "string") throw new Error(`get_weather called without a city: ${JSON.stringify(args)}`);
  return city;
}

/** A stream's text and how many non-empty pieces it came in. */
export async function collectText<T>(
  stream: AsyncIterable<T>,
  pieceOf: (item: T) => string | undefined | null,
): Promise<{ text: string; deltas: number }> {
  let text = "";
  let deltas = 0;
  for await (const item of stream) {
    const piece = pieceOf(item);
    if (!piece) continue;
    text += piece;
    deltas++;
  }
  return { text, deltas };
}
