import { ensureBuild as buildInto, startServer as startNext, type RunningServer } from "@/tests/e2e/server";

export { removeDir, type RunningServer } from "@/tests/e2e/server";

/**
 * The browser suite's server: `next build` (reused when newer than every source file, or with
 * BROWSER_SKIP_BUILD=true) and `next start` on a free port with its own temporary DATA_DIR, through
 * the e2e suite's build and server helpers (tests/e2e/server.ts).
 *
 * The server runs the production build with APP_ENV=development: the embedded default (PGlite, local
 * storage, local mailbox, local checkout simulator, offline AI provider, development sign-in), exactly
 * what a new user gets from `npm run build && npm start` with APP_ENV=development, or `npm run dev`.
 */
/** Build directory (next.config.ts reads NEXT_DIST_DIR): its own, so it never collides with the e2e build in .next. */
export const DIST_DIR = process.env.BROWSER_DIST_DIR || ".next-browser";

/**
 * Secret values the build and the server are given; the client-bundle test greps the built static
 * files for them (and for the names of every server-only setting).
 */
export const TEST_SECRETS = {
  NEXTAUTH_SECRET: "browser-nextauth-secret-7f3a9c1e5b",
  PAYMENT_WEBHOOK_SECRET: "browser-payment-webhook-secret-4d2e8b",
  IDENTITY_WEBHOOK_SECRET: "whsec_YnJvd3Nlci1pZGVudGl0eS1zZWNyZXQtOTk4OA==",
  EMAIL_WEBHOOK_SECRET: "whsec_YnJvd3Nlci1lbWFpbC1zZWNyZXQtNTU2Ng==",
  CRON_SECRET: "browser-cron-secret-2b9d71",
  DEBUG_KEY: "browser-debug-key-61c0aa",
  FILE_URL_SECRET: "browser-file-url-secret-83e5f0",
} as const;

/**
 * Secrets only the build is given (the server runs on the embedded default without them): every
 * server-side credential, so the client-bundle test can show none of them reaches the browser.
 */
export const BUILD_ONLY_SECRETS = {
  DATABASE_URL: "postgresql://browser_db_user:browser-db-password-0c4f7a@127.0.0.1:1/browser_never_used",
  OPENAI_API_KEY: "sk-browser-openai-key-5e91d3",
  RESEND_API_KEY: "re_browser_resend_key_72a0",
  S3_ACCESS_KEY_ID: "BROWSERS3ACCESSKEY4411",
  S3_SECRET_ACCESS_KEY: "browser-s3-secret-access-key-9d02",
  AUTH_GITHUB_SECRET: "browser-github-secret-3f77",
  AUTH_GOOGLE_SECRET: "browser-google-secret-18cc",
  AUTH_OIDC_SECRET: "browser-oidc-secret-a5e2",
  UPSTASH_REDIS_REST_TOKEN: "browser-upstash-token-60b9",
} as const;

export function ensureBuild(log: (line: string) => void = console.log): void {
  buildInto(log, {
    distDir: DIST_DIR,
    skip: process.env.BROWSER_SKIP_BUILD === "true",
    env: { ...TEST_SECRETS, ...BUILD_ONLY_SECRETS },
    label: "browser",
  });
}

/** The production build with APP_ENV=development on the embedded default, knowledge indexed at start. */
export function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  return startNext(
    { ...TEST_SECRETS, APP_ENV: "development", NEXT_DIST_DIR: DIST_DIR, RAG_INDEX_ON_START: "true", ...env },
    { dataDirPrefix: "svc-browser-" },
  );
}
