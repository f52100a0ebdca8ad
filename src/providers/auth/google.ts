// Google Cloud's authorization: an OAuth access token for scope cloud-platform from Application
// Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's ADC file, the metadata server with
// GCE_METADATA_HOST honoured) or the file the config names, sent as Bearer. google-auth-library keeps
// the token and renews it before it expires; it is loaded only when a Vertex provider is called.

import { credentialError, type UpstreamAuth } from "./types.ts";

const SCOPE = "https://www.googleapis.com/auth/cloud-platform";

export function googleAuth(providerId: string, credentialsFile: string | undefined): UpstreamAuth {
  let client: Promise<{ getAccessToken(): Promise<{ token?: string | null }> }> | undefined;
  const accessToken = async (): Promise<string> => {
    client ??= import("google-auth-library").then(({ GoogleAuth }) =>
      new GoogleAuth({
        scopes: [SCOPE],
        ...(credentialsFile ? { keyFilename: credentialsFile } : {}),
      }).getClient(),
    );
    // A failed look-up is not kept: the next call looks again (the file may appear, the server recover).
    const got = await client.catch((err) => {
      client = undefined;
      throw err;
    });
    const { token } = await got.getAccessToken();
    if (!token) throw new Error("the credentials gave no access token");
    return token;
  };
  return {
    async authorize(request) {
      const token = await accessToken().catch((err) => {
        throw credentialError(providerId, err);
      });
      return { ...request.headers, authorization: `Bearer ${token}` };
    },
    // A new client finds the credentials again and fetches a token of its own.
    refused: () => {
      client = undefined;
    },
  };
}
