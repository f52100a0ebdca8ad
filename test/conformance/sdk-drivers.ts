// Every SDK-level client of the conformance matrix: the official SDKs, OpenRouter's SDK, the AI SDK's
// providers and LangChain's chat models, all devDependencies (so `npm test` runs them after a fresh
// install).

import { AI_SDK } from "./ai-sdk.ts";
import type { ClientDriver } from "./driver.ts";
import { LANGCHAIN } from "./langchain.ts";
import { openrouterSdk } from "./openrouter.ts";
import { OFFICIAL_SDKS } from "./sdk-official.ts";

export const SDK_DRIVERS: ClientDriver[] = [...OFFICIAL_SDKS, openrouterSdk, ...AI_SDK, ...LANGCHAIN];
