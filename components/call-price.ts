import type { CallPrice } from "./types";

/** "Each image costs 80 credits." / "Each image is charged by what it uses; …" / "" (no credits). */
export function priceSentence(price: CallPrice, each: string): string {
  if (price === null) return "";
  if (price === "metered")
    return `Each ${each} is charged in credits by what it uses (model and size); what it cost shows once it is done.`;
  return `Each ${each} costs ${price} credits.`;
}

/** A button's " (80 credits)", only where the price is known before the call. */
export function priceSuffix(price: CallPrice): string {
  return typeof price === "number" ? ` (${price} credits)` : "";
}
