// Platform: the names of the grants a function may hold besides the table and the queues. What each one gives is
// defined in shared/operations/grants.ts. A queue's send grant is not listed here: `defineQueue` derives it from the
// queue's name (`send<Queue>`: `sendReceiptCompletions`), and queues.ts joins both into `ResourceGrant`.

/** The grants that are not a queue's: each name is one entry of `resourceGrants` (grants.ts). */
export type ServiceGrant = 'readWebhookSecret' | 'manageSchedules' | 'sealSecrets' | 'openSecrets';
