/** The caller's (or middleware's) x-request-id when it is a sane token, else a new UUID. */
export function requestIdOf(req: Request): string {
  const given = req.headers.get("x-request-id");
  return given && /^[\w.:-]{1,64}$/.test(given) ? given : crypto.randomUUID();
}
