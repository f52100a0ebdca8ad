// Runs drivers across the matrix's columns, one cell at a time (the fakes answer from one script).

import { createRequire } from "node:module";
import { join } from "node:path";
import { COLUMNS, runCell, type Stage } from "./cases.ts";
import type { ClientDriver } from "./driver.ts";
import type { MatrixRow } from "./render.ts";

const require = createRequire(import.meta.url);

/** An installed package's package.json (an alias such as `openai-7` names its install directory). */
function packageJson(pkg: string, from: NodeJS.Require): { name: string; version: string } {
  try {
    return from(`${pkg}/package.json`);
  } catch {
    // Packages whose exports hide package.json: read it beside the resolved entry point.
    const entry = from.resolve(pkg);
    const at = entry.lastIndexOf(`/node_modules/${pkg}/`);
    return from(`${entry.slice(0, at)}/node_modules/${pkg}/package.json`);
  }
}

/** `name version` of each package, an alias under the name it stands for. */
export function versionsOf(packages: string[], from: NodeJS.Require = require): string {
  return packages
    .map((pkg) => {
      const { name, version } = packageJson(pkg, from);
      return `${name} ${version}`;
    })
    .join(", ");
}

export async function runDrivers(
  stage: Stage,
  drivers: ClientDriver[],
  columns: readonly string[] = COLUMNS,
  onCell: (client: string, column: string) => void = () => {},
): Promise<MatrixRow[]> {
  const rows: MatrixRow[] = [];
  for (const driver of drivers) {
    const row: MatrixRow = {
      client: driver.name,
      version: versionsOf(
        driver.packages,
        driver.installedIn ? createRequire(join(driver.installedIn, "package.json")) : require,
      ),
      cells: {},
    };
    for (const column of columns) {
      onCell(driver.name, column);
      row.cells[column] = await runCell(stage, driver, column);
    }
    rows.push(row);
  }
  return rows;
}
