// Azure OpenAI's authorization: the resource's key as `api-key`, or else an Entra ID token as Bearer
// from @azure/identity's default chain (client secret or certificate from the environment, workload
// identity, managed identity, the Azure CLI; AZURE_AUTHORITY_HOST honoured), cached until shortly
// before it expires. The library is loaded on the first call that needs a token.

import { CachedToken, credentialError, type UpstreamAuth } from "./types.ts";

/** The scope of Azure OpenAI (Cognitive Services) tokens. */
const SCOPE = "https://cognitiveservices.azure.com/.default";

export function azureAuth(providerId: string, apiKey: string | undefined): UpstreamAuth {
  if (apiKey) return { authorize: async (request) => ({ ...request.headers, "api-key": apiKey }) };
  let credential: Promise<import("@azure/identity").TokenCredential> | undefined;
  const token = new CachedToken(async () => {
    if (!credential)
      credential = import("@azure/identity").then(
        ({ DefaultAzureCredential }) => new DefaultAzureCredential(),
      );
    const got = await (await credential).getToken(SCOPE);
    if (!got) throw new Error("Entra ID gave no token");
    return { token: got.token, expiresAt: got.expiresOnTimestamp };
  });
  return {
    async authorize(request) {
      const bearer = await token.get().catch((err) => {
        throw credentialError(providerId, err);
      });
      return { ...request.headers, authorization: `Bearer ${bearer}` };
    },
    refused: () => token.forget(),
  };
}
