import type { ReactNode } from "react";

/** One column of a DataTable: its header and what each row shows in it. */
export interface Column<T> {
  header: ReactNode;
  cell: (row: T) => ReactNode;
  align?: "right";
  /** Extra classes of the row's cell (a status colour, say). */
  cellClass?: (row: T) => string;
}

export interface DataTableProps<T> {
  rows: T[];
  columns: Column<T>[];
  rowKey: (row: T) => string;
  label?: string;
  /** A table inside a card of its own (compact, no card around it), with an optional caption. */
  inline?: boolean;
  caption?: string;
  testId?: string;
  rowTestId?: string;
}

/** The console's and dashboard's table: a header row, one row per item. Presentational. */
export function DataTable<T>({ rows, columns, rowKey, label, inline, caption, testId, rowTestId }: DataTableProps<T>) {
  const pad = inline ? "px-2 py-1.5" : "px-4 py-2";
  const table = (
    <table className={`w-full text-sm ${inline ? "mt-3" : ""}`} aria-label={label} data-testid={testId}>
      {caption ? <caption className="text-left text-xs font-medium uppercase tracking-wide text-slate-500">{caption}</caption> : null}
      <thead className={`text-left text-xs uppercase tracking-wide text-slate-500 ${inline ? "" : "bg-slate-50"}`}>
        <tr>
          {columns.map((c, i) => (
            <th key={i} scope="col" className={`${pad} ${c.align === "right" ? "text-right" : ""}`}>
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)} className="border-t border-slate-100 align-top" data-testid={rowTestId}>
            {columns.map((c, i) => (
              <td key={i} className={`${pad} ${c.align === "right" ? "text-right" : ""} ${c.cellClass?.(row) ?? ""}`}>
                {c.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
  return inline ? table : <div className="card overflow-x-auto p-0">{table}</div>;
}
