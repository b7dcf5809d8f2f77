import { publicRequestUrl } from "@/lib/http/public-url";
import { simulatorEnabled } from "@/lib/billing/payment-provider";
import { PORTAL_ACTIONS, runSimulatedPortalAction, type PortalAction } from "@/lib/simulator/simulator-views";
import { AppError, isAppError } from "@/lib/errors";
import { redirect } from "@/lib/http/respond";
import { methods, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route(
    {
      auth: "none",
      feature: () => simulatorEnabled(),
      summary: "Local billing portal: cancel, resume, change plan, simulate renewal / failed / recovered payment",
      description: "Form (from /simulator/portal) or JSON { token, action, variantId? }; the signed portal token authorizes. Form posts answer 303 back to the portal page.",
      tags: ["simulator"],
      consumes: "application/x-www-form-urlencoded",
      // A form post answers 303 to the next page; JSON answers 200.
      errors: [303, 400],
    },
    async ({ req }) => {
      const type = req.headers.get("content-type") ?? "";
      const form = type.includes("form");
      let fields: Record<string, string>;
      try {
        fields = form
          ? Object.fromEntries([...(await req.formData()).entries()].map(([k, v]) => [k, String(v)]))
          : Object.fromEntries(Object.entries((await req.json()) as Record<string, unknown>).map(([k, v]) => [k, String(v ?? "")]));
      } catch {
        throw new AppError("validation_failed", "Invalid body: expected a form or JSON with token and action");
      }
      if (!fields.token) throw new AppError("validation_failed", "Invalid body: token: is required");
      if (!(PORTAL_ACTIONS as readonly string[]).includes(fields.action)) {
        throw new AppError("validation_failed", `Invalid body: action: must be one of ${PORTAL_ACTIONS.join(", ")}`);
      }
      const back = (key: string, message: string) => `/simulator/portal?token=${encodeURIComponent(fields.token)}&${key}=${encodeURIComponent(message)}`;
      try {
        const message = await runSimulatedPortalAction({ token: fields.token, action: fields.action as PortalAction, variantId: fields.variantId || undefined, requestUrl: publicRequestUrl(req) });
        return form ? redirect(back("message", message), 303) : { message };
      } catch (error) {
        if (form && isAppError(error) && error.code !== "internal" && error.code !== "not_found") return redirect(back("error", error.message), 303);
        throw error;
      }
    },
  ),
});
