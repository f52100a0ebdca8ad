// The matrix as text: a markdown table of clients × columns (docs/compatibility.md) whose cells say
// green, red or skipped, with every failure, skip reason and limit written out beneath it.

import { CASES, COLUMNS, type Column, type Outcome, type Row } from "./cases.ts";

export interface MatrixRow {
  client: string;
  version: string;
  /** A row that could not run at all (not installable, say), with why. */
  unavailable?: string;
  /** By column: "local", an upstream protocol, or a cloud platform's (platform-stage.ts). */
  cells: Partial<Record<string, Row>>;
}

/** The columns a table shows, each with its heading, and what a cell not run reads. */
export interface Columns {
  names: readonly string[];
  heading(column: string): string;
  notRun: string;
}

const MATRIX_COLUMNS: Columns = {
  names: COLUMNS,
  heading: (column) => HEADING[column as Column],
  notRun: "⏭ not run",
};

const HEADING: Record<Column, string> = {
  local: "local models",
  openai: "OpenAI chat upstream",
  anthropic: "Anthropic upstream",
  gemini: "Gemini upstream",
  "openai-responses": "Responses API upstream",
};

/** The table and its notes. */
export function renderMatrix(rows: MatrixRow[], columns: Columns = MATRIX_COLUMNS): string {
  const { names, heading } = columns;
  const notes: string[] = [];
  const note = (text: string) => {
    const at = notes.indexOf(text);
    if (at >= 0) return at + 1;
    notes.push(text);
    return notes.length;
  };
  const lines = [
    `| client | version | ${names.map(heading).join(" | ")} |`,
    `|---|---|${names.map(() => "---").join("|")}|`,
  ];
  for (const row of rows) {
    const cells = names.map((column) => {
      if (row.unavailable) return `⏭ skipped [${note(`${row.client}: ${row.unavailable}`)}]`;
      const cell = row.cells[column];
      return cell ? renderCell(row.client, heading(column), cell, note) : columns.notRun;
    });
    lines.push(`| ${row.client} | ${row.version} | ${cells.join(" | ")} |`);
  }
  if (notes.length > 0) lines.push("", ...notes.map((text, i) => `${i + 1}. ${text}`));
  return lines.join("\n");
}

function renderCell(client: string, heading: string, row: Row, note: (text: string) => number): string {
  const outcomes = CASES.map((name) => [name, row[name]] as [string, Outcome]);
  const failed = outcomes.filter(([, o]) => o.status === "fail");
  const skipped = outcomes.filter(([, o]) => o.status === "skip");
  // A reason shared by every case of the cell is one note for the cell.
  const whole = (list: Array<[string, Outcome]>) =>
    list.length === outcomes.length &&
    new Set(list.map(([, o]) => ("reason" in o ? o.reason : ""))).size === 1;
  // A skip is the driver's, not the column's: one note for the row's cells skipped alike.
  const refs = (list: Array<[string, Outcome]>, skips = false) =>
    list.map(([name, o]) => {
      const case_ = whole(list) ? "" : `, ${name}`;
      const where = skips ? case_ : ` × ${heading}${case_}`;
      return note(`${client}${where}: ${"reason" in o ? o.reason : ""}`);
    });
  const limits = outcomes.flatMap(([name, o]) =>
    o.status === "pass" ? o.notes.map((text) => note(`${client}, ${name}: ${text}`)) : [],
  );
  const passed = outcomes.length - failed.length - skipped.length;
  const mark = failed.length > 0 ? "❌" : skipped.length > 0 ? "⏭" : "✅";
  const all = [...refs(failed), ...refs(skipped, true), ...limits];
  const unique = [...new Set(all)].sort((a, b) => a - b);
  return `${mark} ${passed}/${outcomes.length}${unique.length > 0 ? ` [${unique.join(",")}]` : ""}`;
}

/** Every failed case of the rows, one line each (for an assertion's message). */
export function failures(rows: MatrixRow[]): string[] {
  return rows.flatMap((row) =>
    Object.entries(row.cells).flatMap(([column, cell]) =>
      CASES.flatMap((name) => {
        const o = cell?.[name];
        return o?.status === "fail" ? [`${row.client} × ${column}, ${name}: ${o.reason}`] : [];
      }),
    ),
  );
}
