// Infra: construct ids that code outside the CDK app reads from a synthesized template (the local stack), kept in a
// module without aws-cdk-lib so reading them costs nothing.

/** The role task schedules run as: the local stack maps it to the role every task schedule names. */
export const taskSchedulerRoleId = 'TaskSchedulerRole';
