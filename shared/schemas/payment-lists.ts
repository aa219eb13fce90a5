// Schemas: the statuses of payments and refunds and the details a refund reads, as plain values, free of zod, so the
// payment rules (shared/payments/rules.ts, bundled into functions) and the schemas share one list without the rules
// loading zod.

/** Statuses a recorded payment may have. Only a `Paid` payment can be refunded. */
export const paymentStatuses = ['Paid', 'Pending'] as const;
/** Statuses of a refund: `Queued` until the payments queue's consumer completes it (or gives up: `Failed`). */
export const refundStatuses = ['Queued', 'Refunded', 'Failed'] as const;

/** What a refund's `Object` may carry: the refund's own details; anything else of a payment is refused. */
export const refundDetailFields = ['Amount', 'Currency', 'Description', 'Method', 'RefNumber'] as const;
