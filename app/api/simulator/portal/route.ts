import { z } from "zod";
import { simulatorEnabled } from "@/lib/billing/payment-provider";
import { isAppError } from "@/lib/errors";
import { publicRequestUrl } from "@/lib/config/public-url";
import { redirect } from "@/lib/http/respond";
import { methods, route } from "@/lib/http/route";
import { simulatedPortalResponse } from "@/lib/simulator/schemas";
import { PORTAL_ACTIONS, runSimulatedPortalAction } from "@/lib/simulator/simulator-views";

export const dynamic = "force-dynamic";

const actionBody = z.object({
  token: z.string({ error: "is required" }).min(1, "is required"),
  action: z.enum(PORTAL_ACTIONS, { error: `must be one of ${PORTAL_ACTIONS.join(", ")}` }),
  variantId: z.string().optional(),
});

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route(
    {
      auth: "none",
      feature: () => simulatorEnabled(),
      body: actionBody,
      bodyFormat: "form",
      summary: "Local billing portal: cancel, resume, change plan, simulate renewal / failed / recovered payment",
      description: "Form (from /simulator/portal) or JSON { token, action, variantId? }; the signed portal token authorizes. Form posts answer 303 back to the portal page.",
      tags: ["simulator"],
      consumes: "application/x-www-form-urlencoded",
      // A form post answers 303 to the next page; JSON answers 200.
      errors: [303, 400],
      response: simulatedPortalResponse,
    },
    async ({ req, body, bodyFormat }) => {
      const form = bodyFormat === "form";
      const back = (key: string, message: string) => `/simulator/portal?token=${encodeURIComponent(body.token)}&${key}=${encodeURIComponent(message)}`;
      try {
        const message = await runSimulatedPortalAction({ token: body.token, action: body.action, variantId: body.variantId || undefined, requestUrl: publicRequestUrl(req) });
        return form ? redirect(back("message", message), 303) : { message };
      } catch (error) {
        if (form && isAppError(error) && error.code !== "internal" && error.code !== "not_found") return redirect(back("error", error.message), 303);
        throw error;
      }
    },
  ),
});
