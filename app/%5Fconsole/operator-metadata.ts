import type { Metadata } from "next";
import type { ReactNode } from "react";
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

export interface ConsolePageProps {
  params: Promise<Record<string, string>>;
  searchParams: Promise<Record<string, string | undefined>>;
}

/**
 * A console page: its metadata for operators only, and its body rendered only after the operator
 * check (everyone else gets the not-found page). The page file exports both, and `dynamic`:
 *   const page = consolePage("Users", async () => <UsersPanel />);
 *   export const dynamic = "force-dynamic";
 *   export const generateMetadata = page.generateMetadata;
 *   export default page.Page;
 */
export function consolePage(title: string, render: (props: ConsolePageProps) => Promise<ReactNode> | ReactNode) {
  return {
    generateMetadata: operatorMetadata({ title }),
    async Page(props: ConsolePageProps) {
      await requireOperatorPage();
      return render(props);
    },
  };
}
