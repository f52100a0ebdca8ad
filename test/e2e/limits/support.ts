// Keys with limits and budgets for the limits tests, and a model served slowly (for concurrency)
// and one priced high (for budgets), both by the local demo provider.

import { fakeModel } from "../../support/config.ts";

export const RPM_KEYS = {
  chat: "sk-test-rpm-chat-0123456789",
  responses: "sk-test-rpm-responses-0123456789",
  messages: "sk-test-rpm-messages-0123456789",
  gemini: "sk-test-rpm-gemini-0123456789",
};
export const CONCURRENCY_KEY = "sk-test-concurrency-0123456789";
export const BUDGET_KEY = "sk-test-budget-0123456789";
export const TPM_KEY = "sk-test-tpm-0123456789";

export function limitsConfig(): Record<string, unknown> {
  return {
    providers: [{ id: "slow", protocol: "local", chunk_delay_ms: 60 }],
    models: [
      fakeModel("slow/echo-1", ["slow"], { upstream: "echo-1" }),
      fakeModel("local/pricey-1", ["local"], { upstream: "echo-1", prompt: 200, completion: 200 }),
    ],
    keys: [
      ...Object.values(RPM_KEYS).map((key) => ({ key, account: "acme", limits: { rpm: 2 } })),
      { key: CONCURRENCY_KEY, account: "acme", limits: { concurrency: 1 } },
      { key: BUDGET_KEY, account: "acme", budget: { usd: 0.01, period: "day" } },
      { key: TPM_KEY, account: "acme", limits: { tpm: 300 } },
    ],
  };
}
