// Azure OpenAI: chat-completions and the Responses API. With an `api_version`, the deployments API
// (`/openai/deployments/{deployment}/chat/completions?api-version=…`, `/openai/responses?api-version=…`);
// without, the v1 API (`/openai/v1/…`). Either way the model a call names is the deployment's name.

import type { PlatformConfig } from "../../config/providers.ts";
import { type GatewayError, invalidPrompt } from "../../ir/errors.ts";
import { isObject } from "../../protocols/shared/validate.ts";
import { bodyModel, noPlatformEndpoint, type ShapeCall } from "./types.ts";

type Azure = Extract<PlatformConfig, { kind: "azure-openai" }>;

export type AzureFamily = "chat" | "responses";

export function azureShape(providerId: string, azure: Azure): ShapeCall {
  const version = azure.apiVersion;
  if (!version)
    return (call) => {
      if (call.path.startsWith("/responses/")) throw noPlatformEndpoint(providerId, call.path);
      return { ...call, path: `/openai/v1${call.path}` };
    };
  const query = `?api-version=${encodeURIComponent(version)}`;
  return (call) => {
    if (call.path === "/chat/completions") {
      const deployment = encodeURIComponent(bodyModel(call.body) ?? "");
      return { ...call, path: `/openai/deployments/${deployment}/chat/completions${query}` };
    }
    if (call.path === "/responses") return { ...call, path: `/openai/responses${query}` };
    throw noPlatformEndpoint(providerId, call.path);
  };
}

/**
 * A prompt Azure's content filter refused (a 400 with `code: "content_filter"`): the caller's own 400
 * naming its prompt and the filter, never retried elsewhere (the same prompt would be refused
 * anywhere). Any other error is the protocol's to read.
 */
export function azureContentFilterError(status: number, body: unknown): GatewayError | undefined {
  if (status !== 400 || !isObject(body) || !isObject(body.error) || body.error.code !== "content_filter")
    return undefined;
  const said = typeof body.error.message === "string" ? ` ${body.error.message}` : "";
  return invalidPrompt(`Azure OpenAI's content filter refused the prompt.${said}`);
}
