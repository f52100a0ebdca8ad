// The conformance matrix's stage: the e2e matrix's gateway in front of one fake upstream per
// protocol (test/e2e/matrix/harness.ts), told to accept the anthropic-version today's Anthropic SDK
// sends (clients.anthropic_versions), with a tap in front of the gateway that keeps what each client
// was answered (the generation ids the lookup case reads).

import { startMatrix } from "../e2e/matrix/harness.ts";
import { PAYG_KEY } from "../support/gateway.ts";
import { startTap } from "../support/tap.ts";
import type { Stage } from "./cases.ts";

/** The anthropic-version values of the SDK lines the matrix drives (1.x sends the newest). */
export const ANTHROPIC_VERSIONS = ["2026-10-21"];

export async function startStage(): Promise<Stage & { close(): Promise<void> }> {
  const matrix = await startMatrix({ clients: { anthropic_versions: ANTHROPIC_VERSIONS } });
  const front = await startTap(Number(new URL(matrix.gw.url).port));
  return {
    matrix,
    front,
    gw: { base: front.url, key: PAYG_KEY, answers: front.answers },
    async close() {
      await front.close();
      await matrix.close();
    },
  };
}
