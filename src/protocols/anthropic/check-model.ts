// What a messages request may not ask of the model it names: under the interleaved-thinking beta a
// thinking budget may exceed max_tokens (the decoder lets it), but not the model's context window,
// which is then its bound (the provider's rule for that beta).

import { invalid } from "../../ir/errors.ts";
import type { Request } from "../../ir/request.ts";
import type { ModelTraits } from "../types.ts";

export function checkModel(request: Request, model: ModelTraits): void {
  const budget = request.reasoning?.budgetTokens;
  if (budget === undefined || model.contextLength === undefined) return;
  if (budget > model.contextLength)
    throw invalid(
      "thinking.budget_tokens",
      `must not exceed the context window (${model.contextLength}) of the model '${model.id}'`,
    );
}
