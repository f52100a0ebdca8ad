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
