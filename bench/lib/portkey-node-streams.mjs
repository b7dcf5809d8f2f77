// Preloaded (node --import) into Portkey only (bench/lib/portkey-process.ts). Portkey 1.15.2 answers
// 500 to every streamed request through a custom host on Node: it appends its own headers to the
// upstream fetch Response, whose headers Node's fetch makes immutable (`TypeError: immutable` in its
// updateHeaders). Giving it each upstream Response re-wrapped, headers copied into a mutable Headers
// (the body stream passed through untouched, a few microseconds), lets its streams work so the
// benchmark can time them; JSON answers take the same path.
const upstreamFetch = globalThis.fetch;
globalThis.fetch = async (...args) => {
  const response = await upstreamFetch(...args);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: new Headers(response.headers) });
};
