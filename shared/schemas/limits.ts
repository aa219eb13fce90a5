// Schemas: the bounds the spec leaves open (listed in shared/README.md), as plain numbers. Kept apart from the zod
// schemas (common.ts re-exports them) so run-time code that needs a bound (form decoding, body size, paging) does not
// load zod with it.
export const limits = {
  /** Names, codes, reference numbers, GUID strings and other short text. */
  shortText: 200,
  /** Descriptions, notes, addresses, messages. */
  longText: 4_000,
  /** XML fragments carried as strings (InstructionsXML, TriggerXML, TranslationDefinition). */
  documentText: 64 * 1024,
  /** Items in any array of the spec. */
  arrayItems: 500,
  /** Largest magnitude of a `number` field: keeps 2 decimals exact in IEEE-754 doubles. */
  numberMagnitude: 1e13,
  /** Request bodies above this are refused with 413 (API Gateway allows 10 MB; no operation needs more). */
  requestBodyBytes: 1024 * 1024,
  /** URLs and URIs (icons, attachments): the de-facto limit of browsers and CDNs. */
  url: 2_048,
  /** OAuth tokens, keys and sessions (TokenDetails): JWT access tokens often pass 1 KB; a few reach several. */
  credentialText: 8 * 1024,
  /** Email addresses: the SMTP path limit (RFC 5321). */
  emailAddress: 254,
  /** Phone and fax numbers, formatted as people type them. */
  phoneNumber: 50,
  /** `*_offset` and UtcOffset fields, in minutes from UTC: the widest real offsets are -12:00 and +14:00. */
  utcOffsetMinutes: 14 * 60,
  /** How far below the top of its hierarchy a tenant location may be (its ParentID chain): the most links a save walks to find a loop. */
  locationDepth: 16,
} as const;

/** Search pages: MaxResults 1 to 500, default 50. */
export const maxSearchResults = 500;
export const defaultSearchResults = 50;

/** Paging of a payment's refunds in `GET /Payment/{id}` (MaxRefunds): read by the service, so kept out of zod's way. */
export const refundsPage = { default: 100, max: limits.arrayItems } as const;

/** GUIDs one delivery-receipt search may name: matched in lower and upper case, two operands each, at most 100 operands for one IN. */
export const maxSearchGuids = 50;

/** A scheduled task's longest Interval in each unit of its IntervalType: a year of it (366 days, 52 weeks, 12 months). */
export const maxInterval = { minute: 527_040, hour: 8_784, day: 366, week: 52, month: 12 } as const;

/** The years a scheduled task's TimeOfDay may name: EventBridge Scheduler's cron years end with 2199. */
export const taskYears = { first: 1970, last: 2199 } as const;

/** The offsets a scheduled task's TimeOfDay may carry, in minutes from UTC: the real ones, -12:00 to +14:00. */
export const taskOffsetMinutes = { min: -12 * 60, max: 14 * 60 } as const;

/** How many runs a scheduled task's answer lists, newest first (`SyncLogs`' bound; read by the run store). */
export const latestRunsShown = 20;

/**
 * Decimal places a quantity or a unit price may carry (Business Central's default precision for both). Stock on hand
 * is a sum of quantities, so it has the same scale. Read by delivery receipts (lines, stock effects) and inventory.
 */
export const quantityScale = 5;
export const priceScale = 5;
