// The members a fake's model refuses (FakeOptions.modelRefuses): the first one the body holds.

type Json = Record<string, unknown>;

/** The first member at one of the model's refused paths (`stop`, `reasoning.effort`) the body holds. */
export function refusedMember(body: Json, refuses: Record<string, string[]> | undefined): string | undefined {
  const model = body.model;
  if (typeof model !== "string" || !refuses || !Object.hasOwn(refuses, model)) return undefined;
  return refuses[model]!.find((path) => holds(body, path.split(".")));
}

function holds(value: unknown, keys: string[]): boolean {
  let at = value;
  for (const key of keys) {
    if (at === null || typeof at !== "object" || !Object.hasOwn(at, key)) return false;
    at = (at as Json)[key];
  }
  return at !== undefined;
}
