import { z } from "zod";
import { publicRequestUrl } from "@/lib/config/public-url";
import { methods, simulatorRoute } from "@/lib/http/route";
import { simulatedPortalResponse } from "@/lib/simulator/schemas";
import { PORTAL_ACTIONS, runSimulatedPortalAction } from "@/lib/simulator/simulator-views";

export const dynamic = "force-dynamic";

const actionBody = z.object({
  token: z.string({ error: "is required" }).min(1, "is required"),
  action: z.enum(PORTAL_ACTIONS, { error: `must be one of ${PORTAL_ACTIONS.join(", ")}` }),
  variantId: z.string().optional(),
});

const portalPage = (token: string) => `/simulator/portal?token=${encodeURIComponent(token)}`;

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: simulatorRoute(
    {
      body: actionBody,
      summary: "Local billing portal: cancel, resume, change plan, simulate renewal / failed / recovered payment",
      description:
        "Form (from /simulator/portal) or JSON { token, action, variantId? }; the signed portal token authorizes. Form posts answer 303 back to the portal page.",
      response: simulatedPortalResponse,
      formPost: {
        next: (result, body) => `${portalPage(body.token)}&message=${encodeURIComponent(result.message)}`,
        back: (body) => portalPage(body.token),
        // An unknown or expired token has no portal page to go back to.
        passThrough: ["not_found"],
      },
    },
    async ({ req, body }) => ({
      message: await runSimulatedPortalAction({
        token: body.token,
        action: body.action,
        variantId: body.variantId || undefined,
        requestUrl: publicRequestUrl(req),
      }),
    }),
  ),
});
