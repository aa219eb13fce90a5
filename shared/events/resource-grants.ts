// Platform: the names of the grants a function may hold besides the table. What each one gives is defined in
// shared/operations/grants.ts; the names live here, below both the queues and the grants, so a queue's consumer can
// name its grants without the queues importing the grants (they import the queues).

/** The grants a function holds besides the table: each name is one entry of `resourceGrants` (grants.ts). */
export type ResourceGrant =
  | 'sendDocumentEvents'
  | 'sendPayments'
  | 'readWebhookSecret'
  | 'sendTaskWork'
  | 'sendTaskRuns'
  | 'sendScheduleSync'
  | 'sendReceiptCompletions'
  | 'manageSchedules'
  | 'sealSecrets'
  | 'openSecrets';
