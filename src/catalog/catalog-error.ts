// A fault in catalog data (a built-in file or the config file's `models`). The message names the file,
// the key path and the problem, so a user can fix the line without reading code:
// `catalog/google.yaml: models[2].pricings.prompt[1].unit: must be one of perMTokens, perCount, perSecond`.

export class CatalogError extends Error {
  /** The file (or other origin) the data came from. */
  readonly source: string;
  /** Key path inside it, `models[2].pricings.prompt[1].unit`. */
  readonly path: string;

  constructor(source: string, path: string, problem: string) {
    super(`${source}: ${path}: ${problem}`);
    this.name = "CatalogError";
    this.source = source;
    this.path = path;
  }
}

/** Where a value sits, so that checks deep in a record can name it. */
export interface Location {
  source: string;
  path: string;
}

export function at(loc: Location, key: string | number): Location {
  return { source: loc.source, path: typeof key === "number" ? `${loc.path}[${key}]` : `${loc.path}.${key}` };
}

export function fail(loc: Location, problem: string): never {
  throw new CatalogError(loc.source, loc.path, problem);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** Unknown keys are refused: a typo (`max_output_token`) must not silently fall back to a default. */
export function expectKeys(value: Record<string, unknown>, allowed: readonly string[], loc: Location): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) fail(at(loc, key), `unknown key (allowed: ${allowed.join(", ")})`);
  }
}
