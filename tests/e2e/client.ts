/** A tiny HTTP client with a cookie jar, for talking to the real server like a browser or curl would. */
export class Client {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async fetch(pathname: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (this.cookies.size && !headers.cookie) headers.cookie = this.cookieHeader();
    const res = await fetch(`${this.baseUrl}${pathname}`, { redirect: "manual", ...init, headers });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const index = pair.indexOf("=");
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0/i.test(a)) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  async json<T = any>(
    pathname: string,
    init?: RequestInit & { headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; body: T }> {
    const res = await this.fetch(pathname, init);
    const text = await res.text();
    let body: T;
    try {
      body = JSON.parse(text) as T;
    } catch {
      body = text as T;
    }
    return { status: res.status, headers: res.headers, body };
  }

  /** The dev sign-in: GET /api/auth/csrf, then POST /api/auth/callback/dev form-encoded. */
  async signIn(email: string): Promise<Response> {
    const { body } = await this.json<{ csrfToken: string }>("/api/auth/csrf");
    return this.fetch("/api/auth/callback/dev", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken: body.csrfToken, email, json: "true" }).toString(),
    });
  }
}
