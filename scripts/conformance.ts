// `npm run conformance`: the conformance matrix (docs/compatibility.md). Installs the pinned agent
// clients outside the repository (scripts/install-clients.ts), starts the gateway in front of a fake
// upstream of each protocol, drives every client — the SDKs of `npm test`'s part, the agent
// frameworks and the agent CLIs (each of Codex, Claude Code and Gemini CLI also in its default mode) —
// through text, stream, a tool round trip, a second turn with reasoning and a lookup, prints the
// client × upstream matrix, then the cloud platforms' section (the official SDKs and the agent CLIs
// through the gateway to Bedrock, Vertex AI and Azure OpenAI, test/conformance/platform-stage.ts),
// then the embedding clients' rows (test/conformance/embeddings.ts), and writes them all to
// docs/compatibility.md.
//
//   node scripts/conformance.ts [--only NAME…]   NAME: a substring of a client's row label
//   node scripts/conformance.ts --platforms      the cloud platforms' section alone, rewritten in
//                                                docs/compatibility.md (the rest of the page kept)
//
// Exits 1 when a cell is red.

import { readFileSync, writeFileSync } from "node:fs";
import { COLUMNS } from "../test/conformance/cases.ts";
import { CLI_DRIVERS, type UnavailableClient } from "../test/conformance/cli-drivers.ts";
import type { ClientDriver } from "../test/conformance/driver.ts";
import { embeddingMatrix, startEmbeddingStage } from "../test/conformance/embeddings.ts";
import {
  PLATFORM_COLUMNS,
  PLATFORM_HEADING,
  type PlatformColumn,
  platformColumnsOf,
  startPlatformStage,
} from "../test/conformance/platform-stage.ts";
import { failures, type MatrixRow, renderMatrix } from "../test/conformance/render.ts";
import { runDrivers } from "../test/conformance/run.ts";
import { SDK_DRIVERS } from "../test/conformance/sdk-drivers.ts";
import { startStage } from "../test/conformance/stage.ts";

const DOC = new URL("../docs/compatibility.md", import.meta.url);

/** The embedding rows' heading and what they check (test/conformance/embeddings.ts). */
const EMBEDDINGS_SECTION = `## Embeddings

Each embedding client, given the gateway's base URL alone, embeds the same three texts through
\`local/embed-1\`, an embedding model served by a fake OpenAI-compatible upstream (relayed for the
OpenAI-shaped clients) and one served by a fake Gemini upstream (translated for them). A cell
passes (✅) when the client got exactly the vectors the upstream made, in order, and every
generation it made is in the lookup as an embedding of that model with its prompt tokens. These
rows also run in \`npm test\` (\`test/conformance/embeddings-matrix.test.ts\`).`;

/** The cloud platforms' heading and what its rows check (test/conformance/platform-stage.ts). */
const PLATFORMS_HEADING = "## Cloud platforms";
const platformsSection = (table: string) => `${PLATFORMS_HEADING}

The same five cases through the gateway to a model on each cloud platform, each served by the
platform's fake: Claude on Bedrock (InvokeModel with Anthropic bodies, streams in AWS event-stream
frames; the fake refuses a request whose SigV4 signature does not check), Claude and Gemini on
Vertex AI (rawPredict and generateContent; the access token comes from a fake metadata server and is
renewed during the run), GPT on Azure OpenAI (with an \`api-key\`: chat completions for a chat client,
the Responses API for a Responses client). A tool result and a reasoning signature are checked in
the body the platform got. The official SDKs run in every column; each agent CLI to its vendor's
models: Claude Code to Claude on Bedrock and on Vertex, Codex CLI to GPT on Azure (Responses),
Gemini CLI to Gemini on Vertex; a cell reading — is not run. Last run on
${new Date().toISOString().slice(0, 10)} (\`npm run conformance -- --platforms\` runs this section alone).

${table}`;

const args = process.argv.slice(2);
const platformsOnly = args.includes("--platforms");
const only = args.filter((a) => !a.startsWith("--"));
const wanted = (name: string) => only.length === 0 || only.some((o) => name.includes(o));

const drivers = [...SDK_DRIVERS, ...(await CLI_DRIVERS())].filter((d) => wanted(d.name));
const rows = platformsOnly ? [] : await matrixRows(drivers);
const platformRows = await platformMatrixRows(drivers);
const embeddings = platformsOnly ? { table: "", failed: [] } : await embeddingRows();

const table = renderMatrix(rows);
const platformTable = renderMatrix(platformRows, {
  names: PLATFORM_COLUMNS,
  heading: (column) => PLATFORM_HEADING[column as PlatformColumn],
  notRun: "—",
});
if (!platformsOnly) console.log(table);
console.log(`\n${platformTable}`);
if (!platformsOnly) console.log(`\n${embeddings.table}`);
if (only.length === 0 && !platformsOnly) writeFileSync(DOC, page(table, platformTable, embeddings.table));
if (only.length === 0 && platformsOnly)
  writeFileSync(DOC, withPlatforms(readFileSync(DOC, "utf8"), platformsSection(platformTable)));
const red = [...failures(rows), ...failures(platformRows), ...embeddings.failed];
if (red.length > 0) {
  console.error(`\n${red.length} failed case(s):\n${red.join("\n")}`);
  process.exitCode = 1;
}

type Driver = ClientDriver | UnavailableClient;

function unavailableRow(driver: UnavailableClient): MatrixRow {
  return { client: driver.name, version: driver.version, unavailable: driver.unavailable, cells: {} };
}

function progress(client: string, column: string): void {
  process.stderr.write(`${client} × ${column}\n`);
}

async function matrixRows(drivers: Driver[]): Promise<MatrixRow[]> {
  const stage = await startStage();
  const rows: MatrixRow[] = [];
  try {
    for (const driver of drivers) {
      if ("unavailable" in driver) rows.push(unavailableRow(driver));
      else rows.push(...(await runDrivers(stage, [driver], COLUMNS, progress)));
    }
  } finally {
    await stage.close();
  }
  return rows;
}

/** The drivers that run on the platforms, each in its own columns only. */
async function platformMatrixRows(drivers: Driver[]): Promise<MatrixRow[]> {
  const stage = await startPlatformStage();
  const rows: MatrixRow[] = [];
  try {
    for (const driver of drivers) {
      if ("unavailable" in driver) {
        if (platformColumnsOf(driver).length > 0) rows.push(unavailableRow(driver));
        continue;
      }
      const columns = platformColumnsOf(driver);
      if (columns.length > 0) rows.push(...(await runDrivers(stage, [driver], columns, progress)));
    }
  } finally {
    await stage.close();
  }
  return rows;
}

async function embeddingRows(): Promise<{ table: string; failed: string[] }> {
  const embeddingStage = await startEmbeddingStage();
  try {
    return await embeddingMatrix(embeddingStage);
  } finally {
    await embeddingStage.close();
  }
}

/** The page with its cloud platforms' section replaced (or put before the embeddings' section). */
function withPlatforms(doc: string, section: string): string {
  const start = doc.indexOf(PLATFORMS_HEADING);
  const end = doc.indexOf("## Embeddings");
  if (end < 0) throw new Error("docs/compatibility.md has no embeddings section to put the platforms before");
  return `${doc.slice(0, start >= 0 ? start : end)}${section}\n\n${doc.slice(end)}`;
}

function page(table: string, platformTable: string, embeddingTable: string): string {
  return `# Compatibility matrix

Generated by \`npm run conformance\` on ${new Date().toISOString().slice(0, 10)}; do not edit by hand.

Each client is driven unmodified, pointed at the gateway by base URL, environment or its own config
file alone (the exact settings are in \`test/conformance/\`), against the built-in local models
(\`local/echo-1\`, \`local/think-1\` for reasoning) and against a catalog model served by a fake
upstream of each protocol (\`test/fakes/\`: OpenAI chat completions, Anthropic messages, Gemini, the
OpenAI Responses API), through five cases:

- **text**: one answer, whole;
- **stream**: one answer, streamed in more than one piece;
- **tool**: the model calls a tool, the client runs it and sends the result back, the model answers
  from it (against a fake: the result reached the upstream under the call's id);
- **reasoning**: reasoning asked, then a second turn carrying the first answer back (against a fake:
  the signed reasoning reached the upstream again, where the client's protocol carries it; the local
  model refuses a signature that does not check);
- **lookup**: each generation of the text and stream cases looked up by the \`x-generation-id\` the
  client was answered with (\`GET /api/v1/management/generation?id=\`): its model, status, streamed
  flag and token counts.

A cell reads ✅ (every case passed), ❌ (a case failed) or ⏭ (skipped), with the cases passed out of
five; a number in brackets points at a note below the table: why a case failed or was skipped, or
what a client's own protocol mapping cannot do (each such limit is checked, so a client that
outgrows it turns the cell red until the note goes).

A row marked **default mode** runs an agent CLI given only the gateway's address and a key, as a new
user runs it: it asks for its vendor's own model ids (Claude Code's default and its dated small model,
Gemini CLI's \`auto\` router with its classifier model and the flash and pro models it routes between,
Codex's default profile's model), which the matrix's gateway serves as \`aliases\` of the catalog model
of the CLI's own protocol, so such a row runs in that column only. Each of its cases also checks every
model call the CLI made, side calls included, was answered 2xx; for Gemini CLI, that the router's
classifier call reached the gateway (the fake answers it as the real model does for a simple request)
and that its answer routed the turn to the flash model.

A case a known gateway bug fails is shown skipped, with the bug in its note; it still runs, and
turns red once it passes, so that the note goes when the bug is fixed. A row skipped whole names
why the client cannot run here.

OpenRouter's clients (\`@openrouter/sdk\`, \`@openrouter/ai-sdk-provider\`) are given the gateway's
\`/api/v1\` as their base URL, as OpenRouter's own would be.

Two rows keep state at the gateway (the Responses API's default, \`store: true\`): **openai
(Responses API, stored)** continues its tool and reasoning cases' second turns with
\`previous_response_id\` and only the new input, and **AI SDK, openai Responses provider, default
store** leaves the provider's \`store\` as it is, so it sends earlier items back as \`item_reference\`s;
the tool result reaching the upstream under the call's id and the signed reasoning reaching it again
show the stored chain was rebuilt for every upstream. The other Responses rows send \`store: false\`
and the whole conversation. The OpenAI Agents SDK's \`previousResponseId\` is tested in \`test/agents/\`,
and Codex sends \`store: false\` by design, so neither has a stored row here.

The SDK rows also run in \`npm test\` (\`test/conformance/sdk-matrix.test.ts\`); the agent CLIs run
only here, before each release. The CLIs are installed at the versions pinned in
\`test/agents/clients/package-lock.json\` into \`~/.cache/switchyard-clients\`.

${table}

${platformsSection(platformTable)}

${EMBEDDINGS_SECTION}

${embeddingTable}
`;
}
