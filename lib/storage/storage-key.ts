import { randomUUID } from "node:crypto";

/** A fresh random object key, grouped by owner: `uploads/<userId>/<uuid>`. Never the user's file name. */
export function newStorageKey(userId: string): string {
  return `uploads/${userId}/${randomUUID()}`;
}

/** Keys we issue contain only safe characters; anything else is rejected before touching a store. */
export function isValidStorageKey(key: string): boolean {
  return /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/.test(key) && key.length <= 512;
}
