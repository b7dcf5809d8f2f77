import { simulatorEnabled } from "@/lib/billing/payment-provider";
import { completeSimulatedCheckout } from "@/lib/simulator/complete-simulated-checkout";
import { AppError, isAppError } from "@/lib/errors";
import { redirect } from "@/lib/http/respond";
import { methods, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

async function readFields(req: Request): Promise<{ form: boolean; fields: Record<string, string> }> {
  const type = req.headers.get("content-type") ?? "";
  if (type.includes("application/x-www-form-urlencoded") || type.includes("multipart/form-data")) {
    const data = await req.formData().catch(() => {
      throw new AppError("validation_failed", "Invalid body: the form could not be read");
    });
    return { form: true, fields: Object.fromEntries([...data.entries()].map(([k, v]) => [k, String(v)])) };
  }
  try {
    const json = (await req.json()) as Record<string, unknown>;
    return { form: false, fields: Object.fromEntries(Object.entries(json ?? {}).map(([k, v]) => [k, String(v ?? "")])) };
  } catch {
    throw new AppError("validation_failed", "Invalid body: expected a form or JSON with id");
  }
}

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route(
    {
      auth: "none",
      feature: () => simulatorEnabled(),
      summary: "Local checkout simulator: complete a purchase",
      description:
        "Form (from /simulator/checkout/<id>) or JSON { id, email? }. Delivers signed subscription_created + subscription_payment_success, or order_created, to the payment webhook processing, then 303 to the checkout's redirect (JSON: { redirectUrl }). Exists only when Lemon Squeezy is not configured (and outside production unless PAYMENT_SIMULATOR_ENABLED).",
      tags: ["simulator"],
      consumes: "application/x-www-form-urlencoded",
      // A form post answers 303 to the next page; JSON answers 200.
      errors: [303, 400],
    },
    async ({ req }) => {
      const { form, fields } = await readFields(req);
      if (!fields.id) throw new AppError("validation_failed", "Invalid body: id: is required");
      try {
        const { redirectUrl } = await completeSimulatedCheckout(fields.id, { email: fields.email || null });
        return form ? redirect(redirectUrl, 303) : { redirectUrl };
      } catch (error) {
        if (form && isAppError(error) && error.code !== "internal") {
          return redirect(`/simulator/checkout/${encodeURIComponent(fields.id)}?error=${encodeURIComponent(error.message)}`, 303);
        }
        throw error;
      }
    },
  ),
});
