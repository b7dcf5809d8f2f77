import { getDMMF } from "@prisma/get-dmmf";
import type { SqlRunner } from "@/lib/db/migrate";

/**
 * A normalized description of a database schema: tables, columns (type, nullability, default),
 * indexes (name, columns with sort order, unique, primary, method) and foreign keys (columns,
 * referenced table/columns, on delete/update). Built two ways: from schema.prisma's DMMF (what
 * Prisma expects, with Prisma's naming and type conventions for PostgreSQL) and from a migrated
 * database's catalog. The drift test compares the two.
 */
export interface ColumnShape {
  type: string;
  nullable: boolean;
  default: string | null;
}
export interface IndexShape {
  columns: string[];
  unique: boolean;
  primary: boolean;
  method: string;
}
export interface ForeignKeyShape {
  columns: string[];
  references: string;
  referencedColumns: string[];
  onDelete: string;
  onUpdate: string;
}
export interface TableShape {
  columns: Record<string, ColumnShape>;
  indexes: Record<string, IndexShape>;
  foreignKeys: Record<string, ForeignKeyShape>;
}
export type SchemaShape = Record<string, TableShape>;

/** Tables that exist in the database on purpose without a model (see their migrations). */
export const TABLES_OUTSIDE_PRISMA = ["_prisma_migrations", "rag_chunk_embeddings"];

// ---------------------------------------------------------------------------------------------
// schema.prisma -> shape

const SCALAR_TYPES: Record<string, string> = {
  String: "text",
  Int: "integer",
  BigInt: "bigint",
  Boolean: "boolean",
  DateTime: "timestamp(3) without time zone",
  Float: "double precision",
  Decimal: "numeric(65,30)",
  Json: "jsonb",
  Bytes: "bytea",
};

function nativeType(native: [string, string[]]): string {
  const [name, args] = native;
  const arg = args.length ? `(${args.join(",")})` : "";
  switch (name) {
    case "Timestamptz":
      return `timestamp${args.length ? arg : "(3)"} with time zone`;
    case "Timestamp":
      return `timestamp${args.length ? arg : "(3)"} without time zone`;
    case "Decimal":
      return `numeric${arg}`;
    case "VarChar":
      return `character varying${arg}`;
    case "Char":
      return `character${arg}`;
    case "Uuid":
      return "uuid";
    case "Text":
      return "text";
    case "Integer":
      return "integer";
    case "SmallInt":
      return "smallint";
    case "BigInt":
      return "bigint";
    case "DoublePrecision":
      return "double precision";
    case "Real":
      return "real";
    case "Boolean":
      return "boolean";
    case "JsonB":
      return "jsonb";
    case "Json":
      return "json";
    case "Date":
      return "date";
    default:
      return `${name.toLowerCase()}${arg}`;
  }
}

interface DmmfDefault {
  name?: string;
  args?: unknown[];
}

function prismaDefault(value: unknown, type: string): string | null {
  if (value === undefined || value === null) return null;
  // A scalar list's default, as PostgreSQL prints it: ARRAY[]::text[], ARRAY[80, 100] (numbers unquoted).
  if (Array.isArray(value)) {
    if (value.length === 0) return `ARRAY[]::${(SCALAR_TYPES[type] ?? type).toLowerCase()}[]`;
    const numeric = type === "Int" || type === "BigInt";
    return `ARRAY[${value.map((v) => (numeric ? String(v) : `'${v}'`)).join(", ")}]`;
  }
  if (typeof value === "object" && !Array.isArray(value)) {
    const fn = value as DmmfDefault;
    // Client-side generated defaults have no database default.
    if (fn.name === "uuid" || fn.name === "cuid" || fn.name === "nanoid" || fn.name === "ulid") return null;
    if (fn.name === "now") return "CURRENT_TIMESTAMP";
    if (fn.name === "autoincrement") return "autoincrement()";
    if (fn.name === "dbgenerated") return String(fn.args?.[0] ?? "");
    return `${fn.name}()`;
  }
  if (typeof value === "string") return type === "Json" ? `'${value}'::jsonb` : `'${value.replace(/'/g, "''")}'`;
  return String(value);
}

/** Unsupported("...") fields are absent from the DMMF's model fields: read them from the text. */
function unsupportedFields(schemaText: string): Record<string, Array<{ column: string; type: string; nullable: boolean }>> {
  const out: Record<string, Array<{ column: string; type: string; nullable: boolean }>> = {};
  const modelRe = /model\s+(\w+)\s*\{([\s\S]*?)\n\}/g;
  for (const m of schemaText.matchAll(modelRe)) {
    const fields = [];
    for (const line of m[2].split("\n")) {
      const f = /^\s*(\w+)\s+Unsupported\("([^"]+)"\)(\?)?(.*)$/.exec(line);
      if (!f) continue;
      const mapped = /@map\("([^"]+)"\)/.exec(f[4]);
      fields.push({ column: mapped?.[1] ?? f[1], type: f[2], nullable: Boolean(f[3]) });
    }
    if (fields.length) out[m[1]] = fields;
  }
  return out;
}

const ON_ACTION: Record<string, string> = {
  Cascade: "CASCADE",
  Restrict: "RESTRICT",
  NoAction: "NO ACTION",
  SetNull: "SET NULL",
  SetDefault: "SET DEFAULT",
};

/** Prisma's default constraint/index names (PostgreSQL limit: 63 bytes, Prisma truncates the stem). */
function prismaName(table: string, columns: string[], suffix: string): string {
  const stem = `${table}_${columns.join("_")}`;
  return `${stem.slice(0, 63 - suffix.length - 1)}_${suffix}`;
}

export async function shapeFromPrismaSchema(schemaText: string): Promise<SchemaShape> {
  const dmmf = await getDMMF({ datamodel: schemaText });
  if ("type" in dmmf && (dmmf.type === "wasm-error" || dmmf.type === "parse-json")) {
    throw new Error(`schema.prisma does not parse: ${dmmf.reason}: ${dmmf.error?.message}`);
  }
  const { datamodel } = dmmf as Exclude<typeof dmmf, { type: string }>;
  const unsupported = unsupportedFields(schemaText);
  const shape: SchemaShape = {};
  const tableOf = new Map(datamodel.models.map((m) => [m.name, m.dbName ?? m.name]));
  const columnOf = new Map<string, string>();
  for (const model of datamodel.models) {
    for (const field of model.fields) columnOf.set(`${model.name}.${field.name}`, field.dbName ?? field.name);
  }
  const col = (model: string, field: string) => {
    const name = columnOf.get(`${model}.${field}`);
    if (name) return name;
    const u = unsupported[model]?.find((x) => x.column === field);
    if (u) return u.column;
    throw new Error(`unknown field ${model}.${field}`);
  };

  for (const model of datamodel.models) {
    const table = tableOf.get(model.name) as string;
    const t: TableShape = { columns: {}, indexes: {}, foreignKeys: {} };
    for (const field of model.fields) {
      if (field.kind === "object") continue;
      const type = field.nativeType
        ? nativeType(field.nativeType as [string, string[]])
        : field.kind === "enum"
          ? field.type
          : (SCALAR_TYPES[field.type] ?? field.type);
      t.columns[field.dbName ?? field.name] = {
        type: field.isList ? `${type}[]` : type,
        nullable: !field.isRequired,
        default: field.isUpdatedAt ? null : prismaDefault(field.default, field.type),
      };
    }
    for (const u of unsupported[model.name] ?? []) t.columns[u.column] = { type: u.type, nullable: u.nullable, default: null };

    for (const index of datamodel.indexes.filter((i) => i.model === model.name)) {
      const columns = index.fields.map((f) => `${col(model.name, f.name)}${f.sortOrder === "desc" ? " DESC" : ""}`);
      const bare = index.fields.map((f) => col(model.name, f.name));
      const primary = index.type === "id";
      const unique = primary || index.type === "unique";
      const name = (index as { dbName?: string }).dbName ?? (primary ? `${table}_pkey` : prismaName(table, bare, unique ? "key" : "idx"));
      t.indexes[name] = {
        columns,
        unique,
        primary,
        method: ((index as { algorithm?: string }).algorithm ?? "btree").toLowerCase(),
      };
    }

    for (const field of model.fields) {
      if (field.kind !== "object" || !field.relationFromFields?.length) continue;
      const columns = field.relationFromFields.map((f) => col(model.name, f));
      const requiredFk = field.relationFromFields.every((f) => model.fields.find((x) => x.name === f)?.isRequired);
      const onDelete = field.relationOnDelete ?? (requiredFk ? "Restrict" : "SetNull");
      const onUpdate = (field as { relationOnUpdate?: string }).relationOnUpdate ?? "Cascade";
      t.foreignKeys[prismaName(table, columns, "fkey")] = {
        columns,
        references: tableOf.get(field.type) as string,
        referencedColumns: (field.relationToFields ?? []).map((f) => col(field.type, f)),
        onDelete: ON_ACTION[onDelete] ?? onDelete,
        onUpdate: ON_ACTION[onUpdate] ?? onUpdate,
      };
    }
    shape[table] = t;
  }
  return shape;
}

// ---------------------------------------------------------------------------------------------
// migrated catalog -> shape

const FK_ACTION: Record<string, string> = { a: "NO ACTION", r: "RESTRICT", c: "CASCADE", n: "SET NULL", d: "SET DEFAULT" };

function normalizeDefault(expr: string | null): string | null {
  if (expr === null) return null;
  let e = expr.trim();
  if (/^(now\(\)|CURRENT_TIMESTAMP)$/i.test(e)) return "CURRENT_TIMESTAMP";
  if (/^nextval\(/.test(e)) return "autoincrement()";
  // 'free'::text -> 'free'; keep the type cast only for json literals
  const literal = /^('(?:[^']|'')*')::(text|character varying|bpchar)$/.exec(e);
  if (literal) e = literal[1];
  return e;
}

export async function shapeFromDatabase(runner: SqlRunner, schema = "public"): Promise<SchemaShape> {
  const columns = await runner.query<{ table: string; column: string; type: string; not_null: boolean; default: string | null }>(
    `SELECT c.relname AS "table", a.attname AS "column", format_type(a.atttypid, a.atttypmod) AS "type",
            a.attnotnull AS "not_null", pg_get_expr(d.adbin, d.adrelid) AS "default"
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
       LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')
      ORDER BY c.relname, a.attnum`,
    [schema],
  );
  const indexes = await runner.query<{
    table: string;
    name: string;
    unique: boolean;
    primary: boolean;
    method: string;
    keys: string;
    options: string;
  }>(
    `SELECT t.relname AS "table", ic.relname AS "name", i.indisunique AS "unique", i.indisprimary AS "primary",
            am.amname AS "method", i.indkey::text AS "keys", i.indoption::text AS "options"
       FROM pg_index i
       JOIN pg_class t ON t.oid = i.indrelid
       JOIN pg_class ic ON ic.oid = i.indexrelid
       JOIN pg_am am ON am.oid = ic.relam
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = $1`,
    [schema],
  );
  const attnames = await runner.query<{ table: string; attnum: number; name: string }>(
    `SELECT c.relname AS "table", a.attnum::int AS "attnum", a.attname AS "name"
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND a.attnum > 0 AND c.relkind IN ('r', 'p')`,
    [schema],
  );
  const fks = await runner.query<{
    table: string;
    name: string;
    columns: string[] | string;
    references: string;
    referenced_columns: string[] | string;
    on_delete: string;
    on_update: string;
  }>(
    `SELECT t.relname AS "table", con.conname AS "name",
            ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(n, o)
                    JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n ORDER BY k.o) AS "columns",
            rt.relname AS "references",
            ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(n, o)
                    JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n ORDER BY k.o) AS "referenced_columns",
            con.confdeltype AS "on_delete", con.confupdtype AS "on_update"
       FROM pg_constraint con
       JOIN pg_class t ON t.oid = con.conrelid
       JOIN pg_class rt ON rt.oid = con.confrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE con.contype = 'f' AND n.nspname = $1`,
    [schema],
  );

  const shape: SchemaShape = {};
  const table = (name: string) => (shape[name] ??= { columns: {}, indexes: {}, foreignKeys: {} });
  for (const c of columns) {
    table(c.table).columns[c.column] = { type: c.type, nullable: !c.not_null, default: normalizeDefault(c.default) };
  }
  const names = new Map(attnames.map((a) => [`${a.table}.${a.attnum}`, a.name]));
  for (const i of indexes) {
    const keys = i.keys.split(" ").map(Number);
    const options = i.options.split(" ").map(Number);
    table(i.table).indexes[i.name] = {
      columns: keys.map((k, n) => `${k === 0 ? "(expression)" : names.get(`${i.table}.${k}`)}${(options[n] ?? 0) & 1 ? " DESC" : ""}`),
      unique: i.unique,
      primary: i.primary,
      method: i.method,
    };
  }
  const arr = (v: string[] | string) =>
    Array.isArray(v)
      ? v
      : v
          .replace(/^\{|\}$/g, "")
          .split(",")
          .filter(Boolean);
  for (const f of fks) {
    table(f.table).foreignKeys[f.name] = {
      columns: arr(f.columns),
      references: f.references,
      referencedColumns: arr(f.referenced_columns),
      onDelete: FK_ACTION[f.on_delete] ?? f.on_delete,
      onUpdate: FK_ACTION[f.on_update] ?? f.on_update,
    };
  }
  return shape;
}

// ---------------------------------------------------------------------------------------------
// comparison

/** Every difference between what schema.prisma expects and what the database has, one line each. */
export function diffShapes(expected: SchemaShape, actual: SchemaShape, ignoreTables = TABLES_OUTSIDE_PRISMA): string[] {
  const problems: string[] = [];
  const tables = new Set([...Object.keys(expected), ...Object.keys(actual)].filter((t) => !ignoreTables.includes(t)));
  for (const name of [...tables].sort()) {
    const e = expected[name];
    const a = actual[name];
    if (!e) {
      problems.push(`table ${name}: in the migrations but not in schema.prisma`);
      continue;
    }
    if (!a) {
      problems.push(`table ${name}: in schema.prisma but not in the migrations`);
      continue;
    }
    for (const kind of ["columns", "indexes", "foreignKeys"] as const) {
      const label = kind === "columns" ? "column" : kind === "indexes" ? "index" : "foreign key";
      const keys = new Set([...Object.keys(e[kind]), ...Object.keys(a[kind])]);
      for (const key of [...keys].sort()) {
        const ev = (e[kind] as Record<string, unknown>)[key];
        const av = (a[kind] as Record<string, unknown>)[key];
        if (ev === undefined) problems.push(`${name}: ${label} ${key} is in the migrations but not in schema.prisma`);
        else if (av === undefined) problems.push(`${name}: ${label} ${key} is in schema.prisma but not in the migrations`);
        else if (JSON.stringify(ev) !== JSON.stringify(av)) {
          problems.push(`${name}: ${label} ${key} differs: schema.prisma ${JSON.stringify(ev)} vs migrations ${JSON.stringify(av)}`);
        }
      }
    }
  }
  return problems;
}
