// Network-level upstream failures (no HTTP answer, or an answer cut short) as GatewayErrors.
// Messages never include the upstream URL's credentials or request headers.

import { GatewayError, sizeText } from "../../ir/errors.ts";
import { AnswerTooLarge } from "./exchange.ts";

export function transportError(err: unknown, providerId: string): GatewayError {
  if (err instanceof GatewayError) return err;
  const code = (err as { code?: string })?.code ?? "";
  const name = (err as Error)?.name ?? "";
  if (name === "AbortError")
    return new GatewayError("api_error", "The request was cancelled.", { status: 499 });
  if (code === "UND_ERR_CONNECT_TIMEOUT")
    return new GatewayError("timeout", `Provider '${providerId}' did not accept the connection in time.`, {
      status: 504,
    });
  if (code === "UND_ERR_HEADERS_TIMEOUT")
    return new GatewayError("timeout", `Provider '${providerId}' did not start answering in time.`, {
      status: 504,
    });
  if (err instanceof AnswerTooLarge)
    return new GatewayError(
      "api_error",
      `Provider '${providerId}' answered with more than ${sizeText(err.limitBytes)}.`,
      { status: 502 },
    );
  if (code === "UND_ERR_BODY_TIMEOUT")
    return new GatewayError("timeout", `Provider '${providerId}' stalled in the middle of its answer.`, {
      status: 504,
    });
  return new GatewayError(
    "api_error",
    `Provider '${providerId}' could not be reached (${code || name || "error"}).`,
    {
      status: 502,
    },
  );
}

/** An upstream answer that is not the JSON its protocol promises: a 502, on every route. */
export function malformedAnswer(providerId: string): GatewayError {
  return new GatewayError("api_error", `Provider '${providerId}' answered with malformed JSON.`, {
    status: 502,
  });
}
