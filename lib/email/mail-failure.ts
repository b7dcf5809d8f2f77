/**
 * Why a message could not be sent, in an operator's terms: the setting to look at and what to do,
 * and whether trying again later may work. Built from what the transport reported (Resend's error
 * name and HTTP status, or a network failure), never from the message's content.
 */
export interface MailFailure {
  /** The setting an operator should check (RESEND_API_KEY, EMAIL_FROM, RESEND_BASE_URL), or null for the provider's own trouble. */
  setting: string | null;
  /** One sentence an operator can act on. */
  advice: string;
  /** A passing failure (rate limit, provider outage, network): the same message may go through later. */
  transient: boolean;
}

/** A transport's refusal, with what its API said. */
export class MailerError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly providerCode: string | null,
  ) {
    super(message);
    this.name = "MailerError";
  }
}

const KEY_CODES = new Set(["missing_api_key", "invalid_api_key", "restricted_api_key"]);
const SENDER_CODES = new Set(["invalid_from_address"]);

export function describeMailFailure(error: unknown): MailFailure {
  if (!(error instanceof MailerError)) {
    return {
      setting: "RESEND_BASE_URL",
      advice: "Resend could not be reached: check this server's outbound network (and RESEND_BASE_URL if it is set)",
      transient: true,
    };
  }
  const code = error.providerCode ?? "";
  const text = error.message;
  if (KEY_CODES.has(code) || error.status === 401) {
    return {
      setting: "RESEND_API_KEY",
      advice: "Resend refused the API key: set RESEND_API_KEY to a sending key of your Resend account",
      transient: false,
    };
  }
  if (SENDER_CODES.has(code) || /domain is not verified|from.*(address|field)|testing emails to your own/i.test(text)) {
    return {
      setting: "EMAIL_FROM",
      advice:
        "Resend refused the sender: set EMAIL_FROM to an address on a domain verified in your Resend account (Resend's test sender only delivers to your own address)",
      transient: false,
    };
  }
  if (error.status === 403) {
    return {
      setting: "RESEND_API_KEY",
      advice: "Resend refused to send with this API key (restricted key or account): check RESEND_API_KEY and the account",
      transient: false,
    };
  }
  if (error.status === 429 || /rate_limit|quota/.test(code)) {
    return {
      setting: null,
      advice: "Resend's sending limit or daily quota was reached; messages go out again once it resets",
      transient: true,
    };
  }
  if (error.status !== null && error.status >= 500)
    return { setting: null, advice: "Resend answered with a server error; it usually passes", transient: true };
  return { setting: "EMAIL_FROM", advice: "Resend refused the message: check EMAIL_FROM and the recipient's address", transient: false };
}
