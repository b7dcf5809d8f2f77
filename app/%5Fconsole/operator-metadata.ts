import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { resolveOperator } from "@/lib/auth/resolve-operator";

/** The operator of this page request, or null (the console then renders as an unknown page). */
export async function currentOperator() {
  return resolveOperator(new Request("http://localhost/admin", { headers: await headers() }));
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
