import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { isConsoleAccess, CONSOLE_ACCESS_HEADER } from "@/lib/auth/console-access";
import { resolveOperator } from "@/lib/auth/resolve-operator";

/**
 * The operator of this page request, or null (the console then renders as an unknown page): only a
 * request the proxy rewrote from /admin for an operator carries the console access header; one that
 * reached the console's own path any other way is nobody's.
 */
export async function currentOperator() {
  const h = await headers();
  if (!isConsoleAccess(h.get(CONSOLE_ACCESS_HEADER))) return null;
  return resolveOperator(new Request("http://localhost/admin", { headers: h }));
}

/**
 * A console page's metadata: its title for operators; for anyone else nothing of its own, so the
 * not-found page it renders carries exactly the metadata of an unknown path's.
 */
export function operatorMetadata(metadata: Metadata): () => Promise<Metadata> {
  return async () => ((await currentOperator()) ? metadata : {});
}

/**
 * The first line of every console page: anyone but an operator gets the not-found page before the
 * page renders anything (its layout checks too, but renders in parallel with the page).
 */
export async function requireOperatorPage(): Promise<void> {
  if (!(await currentOperator())) notFound();
}
