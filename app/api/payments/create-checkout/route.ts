import { publicRequestUrl } from "@/lib/config/public-url";
import { z } from "zod";
import { createGuestCheckout, createPlanCheckout } from "@/lib/billing/checkout/create-checkout";
import { redirect } from "@/lib/http/respond";
import { methods, paymentRoute, route } from "@/lib/http/route";
import { checkoutUrlResponse } from "@/lib/billing/schemas";

export const dynamic = "force-dynamic";

const optional = z.string().trim().max(2048).optional();

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: paymentRoute(
    {
      summary: "Create a checkout for a plan variant",
      description: "redirectUrl and cancelUrl must be paths or addresses of this app.",
      body: z.object({
        variantId: z.string().trim().min(1, "is required"),
        productId: optional,
        redirectUrl: optional,
        cancelUrl: optional,
        discountCode: z.string().trim().max(64).optional(),
      }),
      response: checkoutUrlResponse,
      errors: [400, 404],
    },
    ({ user, account, body, req }) =>
      createPlanCheckout({
        userId: account.id,
        buyerEmail: user.email,
        variantId: body.variantId,
        redirectUrl: body.redirectUrl,
        cancelUrl: body.cancelUrl,
        discountCode: body.discountCode,
        requestUrl: publicRequestUrl(req),
      }),
  ),
  GET: route(
    {
      auth: "none",
      summary: "Registration-first checkout: 302 to the checkout of a tier and billing period",
      description:
        "No session. Answers exactly 302 (Location: the checkout). tier: basic | pro | enterprise; billing: monthly | yearly (default monthly); email optionally prefills the checkout. The purchase attaches to the account registering with the buyer's email.",
      tags: ["payments"],
      query: z.object({
        tier: z.enum(["basic", "pro", "enterprise"], { message: "must be basic, pro or enterprise" }),
        billing: z.enum(["monthly", "yearly"], { message: "must be monthly or yearly" }).default("monthly"),
        email: z.email({ message: "must be an email address" }).optional(),
      }),
      errors: [400],
      successStatus: 302,
    },
    async ({ query, req }) => redirect((await createGuestCheckout({ ...query, requestUrl: publicRequestUrl(req) })).checkoutUrl, 302),
  ),
});
