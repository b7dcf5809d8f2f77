type JsonObject = Record<string, unknown>;

/** next-auth's endpoints (not declared with route()) that API clients use for the dev sign-in. */
export function authPaths(): Record<string, JsonObject> {
  return {
    "/api/auth/csrf": {
      get: {
        operationId: "getAuthCsrf",
        summary: "CSRF token for sign-in (next-auth)",
        tags: ["auth"],
        responses: {
          "200": {
            description: "OK (sets the next-auth.csrf-token cookie)",
            content: {
              "application/json": { schema: { type: "object", properties: { csrfToken: { type: "string" } }, required: ["csrfToken"] } },
            },
          },
        },
        security: [],
      },
    },
    "/api/auth/callback/dev": {
      post: {
        operationId: "postAuthCallbackDev",
        summary: "Development sign-in by email (next-auth Credentials provider `dev`)",
        description:
          "Off in production unless AUTH_DEV_LOGIN=true. Send the csrf cookie from /api/auth/csrf. Creates the user with free-tier credits on first sign-in and sets the session cookie.",
        tags: ["auth"],
        requestBody: {
          required: true,
          content: {
            "application/x-www-form-urlencoded": {
              schema: {
                type: "object",
                properties: { csrfToken: { type: "string" }, email: { type: "string", format: "email" }, json: { type: "string" } },
                required: ["csrfToken", "email"],
              },
            },
          },
        },
        responses: {
          "200": { description: "Signed in (with json=true)" },
          "302": { description: "Signed in, or redirected to /signin?error=... when refused" },
        },
        security: [],
      },
    },
    "/api/auth/session": {
      get: {
        operationId: "getAuthSession",
        summary: "Current session (next-auth)",
        tags: ["auth"],
        responses: {
          "200": {
            description: "The session, or {} when signed out (no session needed)",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: {
                    user: { type: "object", properties: { id: { type: "string" }, email: { type: ["string", "null"] } } },
                    expires: { type: "string", format: "date-time" },
                  },
                },
              },
            },
          },
        },
        security: [{}, { sessionCookie: [] }],
      },
    },
  };
}
