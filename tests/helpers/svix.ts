import { randomUUID } from "node:crypto";
import { Webhook } from "svix";

/**
 * The headers of a delivery signed exactly as svix signs it (Standard Webhooks): svix-id,
 * svix-timestamp (seconds) and svix-signature over `${id}.${timestamp}.${body}`.
 */
export function svixHeaders(secret: string, body: string, options: { id?: string; at?: Date } = {}): Record<string, string> {
  const id = options.id ?? `msg_${randomUUID()}`;
  const at = options.at ?? new Date();
  return {
    "svix-id": id,
    "svix-timestamp": String(Math.floor(at.getTime() / 1000)),
    "svix-signature": new Webhook(secret).sign(id, at, body),
  };
}
