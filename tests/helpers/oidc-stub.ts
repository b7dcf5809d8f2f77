import { createHash, createSign, generateKeyPairSync, randomBytes, type KeyObject } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/**
 * A local OpenID Connect provider for the sign-in tests: discovery, the authorization endpoint (it
 * "signs in" at once with the claims queued by the test and redirects back with a code), the token
 * endpoint (authorization code + PKCE S256, client_secret_basic or _post) issuing an RS256 id_token,
 * JWKS and userinfo. Tests queue claims over HTTP (POST /__claims), since the stub may run in another
 * process than the test (vitest global setup).
 */
export interface OidcClaims {
  sub: string;
  email?: string;
  /** Omitted claims are left out of the id_token entirely (a provider that says nothing). */
  email_verified?: boolean | string;
  name?: string;
}

export interface OidcStub {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Claims the next authorization signs in with (in-process tests; others POST /__claims). */
  queue(claims: OidcClaims): void;
  close(): Promise<void>;
}

const CLIENT_ID = "oidc-stub-client";
const CLIENT_SECRET = "oidc-stub-client-secret-0123456789";

function b64url(input: Buffer | string): string {
  return Buffer.from(input).toString("base64url");
}

function signJwt(payload: Record<string, unknown>, key: KeyObject, kid: string): string {
  const header = b64url(JSON.stringify({ alg: "RS256", typ: "JWT", kid }));
  const body = b64url(JSON.stringify(payload));
  const signature = createSign("RSA-SHA256").update(`${header}.${body}`).sign(key);
  return `${header}.${body}.${b64url(signature)}`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export async function startOidcStub(port = 0): Promise<OidcStub> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const kid = randomBytes(8).toString("hex");
  const jwk = { ...(publicKey.export({ format: "jwk" }) as Record<string, string>), kid, use: "sig", alg: "RS256" };
  const pending: OidcClaims[] = [];
  const codes = new Map<string, { claims: OidcClaims; challenge: string | null; redirectUri: string; nonce: string | null }>();
  const tokens = new Map<string, OidcClaims>();
  let issuer = "";

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", issuer);
    try {
      if (req.method === "POST" && url.pathname === "/__claims") {
        pending.push(JSON.parse(await readBody(req)) as OidcClaims);
        return send(res, 204, {});
      }
      if (url.pathname === "/.well-known/openid-configuration") {
        return send(res, 200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          userinfo_endpoint: `${issuer}/userinfo`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ["code"],
          subject_types_supported: ["public"],
          id_token_signing_alg_values_supported: ["RS256"],
          token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
          code_challenge_methods_supported: ["S256"],
          scopes_supported: ["openid", "email", "profile"],
          claims_supported: ["sub", "email", "email_verified", "name"],
        });
      }
      if (url.pathname === "/jwks") return send(res, 200, { keys: [jwk] });
      if (url.pathname === "/authorize") {
        const redirectUri = url.searchParams.get("redirect_uri");
        if (url.searchParams.get("client_id") !== CLIENT_ID || !redirectUri) return send(res, 400, { error: "invalid_request" });
        const claims = pending.shift();
        const back = new URL(redirectUri);
        const state = url.searchParams.get("state");
        if (state) back.searchParams.set("state", state);
        if (!claims) {
          back.searchParams.set("error", "access_denied");
        } else {
          const code = randomBytes(16).toString("hex");
          codes.set(code, { claims, challenge: url.searchParams.get("code_challenge"), redirectUri, nonce: url.searchParams.get("nonce") });
          back.searchParams.set("code", code);
        }
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      if (req.method === "POST" && url.pathname === "/token") {
        const form = new URLSearchParams(await readBody(req));
        const basic = req.headers.authorization?.startsWith("Basic ")
          ? Buffer.from(req.headers.authorization.slice(6), "base64").toString("utf8").split(":").map(decodeURIComponent)
          : [form.get("client_id"), form.get("client_secret")];
        if (basic[0] !== CLIENT_ID || basic[1] !== CLIENT_SECRET) return send(res, 401, { error: "invalid_client" });
        const grant = codes.get(form.get("code") ?? "");
        codes.delete(form.get("code") ?? "");
        if (!grant || grant.redirectUri !== form.get("redirect_uri")) return send(res, 400, { error: "invalid_grant" });
        if (grant.challenge) {
          const verifier = form.get("code_verifier") ?? "";
          if (createHash("sha256").update(verifier).digest("base64url") !== grant.challenge)
            return send(res, 400, { error: "invalid_grant", error_description: "PKCE" });
        }
        const now = Math.floor(Date.now() / 1000);
        const accessToken = randomBytes(16).toString("hex");
        tokens.set(accessToken, grant.claims);
        const idToken = signJwt(
          { iss: issuer, aud: CLIENT_ID, iat: now, exp: now + 300, ...(grant.nonce ? { nonce: grant.nonce } : {}), ...grant.claims },
          privateKey,
          kid,
        );
        return send(res, 200, {
          access_token: accessToken,
          token_type: "Bearer",
          expires_in: 300,
          id_token: idToken,
          scope: "openid email profile",
        });
      }
      if (url.pathname === "/userinfo") {
        const claims = tokens.get((req.headers.authorization ?? "").replace(/^Bearer /, ""));
        return claims ? send(res, 200, claims) : send(res, 401, { error: "invalid_token" });
      }
      send(res, 404, { error: "not_found" });
    } catch (error) {
      send(res, 500, { error: String(error) });
    }
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    issuer,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    queue: (claims) => void pending.push(claims),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Queues the claims of the next sign-in on a stub running in another process. */
export async function queueOidcClaims(issuer: string, claims: OidcClaims): Promise<void> {
  const res = await fetch(`${issuer}/__claims`, { method: "POST", body: JSON.stringify(claims) });
  if (res.status !== 204) throw new Error(`oidc stub refused the claims: ${res.status}`);
}
