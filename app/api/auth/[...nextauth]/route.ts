import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/options";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ nextauth: string[] }> };

// Options are built per request so env changes (tests, flags) apply without a restart.
async function handler(req: Request, ctx: Ctx) {
  return NextAuth(req as never, ctx as never, authOptions());
}

export { handler as GET, handler as POST };
