import { randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { env } from "@/lib/config/env";
import type { Mailer } from "./mailer-types";

/** A message kept by the local mailbox (one JSON file each under `${DATA_DIR}/mail`). */
export interface LocalMail {
  messageId: string;
  emailLogId: string;
  from: string;
  to: string;
  subject: string;
  html?: string;
  text?: string;
  sentAt: string;
}

export function mailboxDir(): string {
  return path.resolve(/*turbopackIgnore: true*/ env().dataDir, "mail");
}

/** The embedded default transport: writes each message to the local mailbox instead of sending it. */
export function localMailbox(): Mailer {
  return {
    kind: "local",
    async send(email) {
      const dir = mailboxDir();
      await mkdir(dir, { recursive: true });
      const sentAt = new Date();
      const mail: LocalMail = {
        messageId: `local-${randomUUID()}`,
        emailLogId: email.emailLogId,
        from: email.from,
        to: email.to,
        subject: email.subject,
        html: email.html,
        text: email.text,
        sentAt: sentAt.toISOString(),
      };
      // Sortable name; written to a temp name first so a reader never sees half a file.
      const name = `${sentAt.getTime().toString().padStart(15, "0")}-${mail.messageId}.json`;
      const tmp = path.join(/*turbopackIgnore: true*/ dir, `.${name}.tmp`);
      await writeFile(tmp, JSON.stringify(mail, null, 2));
      await rename(tmp, path.join(/*turbopackIgnore: true*/ dir, name));
      return { messageId: mail.messageId };
    },
  };
}

/** Messages in the local mailbox, newest first. */
export async function listLocalMail(limit = 100): Promise<LocalMail[]> {
  let names: string[];
  try {
    names = (await readdir(mailboxDir())).filter((n) => n.endsWith(".json") && !n.startsWith("."));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  names.sort().reverse();
  const out: LocalMail[] = [];
  for (const name of names.slice(0, limit)) {
    try {
      out.push(JSON.parse(await readFile(path.join(/*turbopackIgnore: true*/ mailboxDir(), name), "utf8")) as LocalMail);
    } catch {
      // a file removed or edited by hand: skip it
    }
  }
  return out;
}
