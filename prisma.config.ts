import { defineConfig } from "prisma/config";

// Prisma 7 keeps the connection URL out of schema.prisma. Migrations are applied by our own runner
// (scripts/db-migrate.ts, lib/db/migrate.ts), so this file only locates the schema and migrations.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost/unused" },
});
