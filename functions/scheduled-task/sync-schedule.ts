// Placeholder of the schedule-sync queue consumer (shared/events/queues.ts names this module): it is built on wip/sched-api, whose
// file replaces this one at merge. Until then the module exists so that synth (which bundles every entry) and the
// local stack load; every invocation fails, so the queue keeps its messages and redrives them to its DLQ.
export const handler = async (): Promise<never> => {
  throw new Error('built on wip/sched-api');
};
