// Entry: POST /ScheduledTasks/: creates (201 with Location) when ID is 0 or absent, otherwise updates (200). The
// task is stored first, then its schedule is brought in line; a scheduler that fails leaves it Pending (still 2xx).
// Once per Idempotency-Key: the key's claim is written in the task's own write (shared/data/idempotency.ts).
import { httpOperation, respond } from '#shared/http/operation';
import { scheduledTaskSave } from '#shared/compiled/operations/scheduled-tasks';
import { savedAnswer } from '#shared/http/answers/scheduled-tasks';
import { idempotencyKeyHeader, keyedRequestOf, scheduledTaskIdempotency, scheduledTaskService } from '#shared/scheduled-tasks/wiring';

const tasks = scheduledTaskService();
const idempotency = scheduledTaskIdempotency(scheduledTaskSave.operationId);

export const handler = httpOperation(scheduledTaskSave).handler(async ({ principal, body, headers }) => {
  const answer = await idempotency.run({ tenantId: principal.tenantId, key: headers[idempotencyKeyHeader], request: keyedRequestOf(body) }, savedAnswer, (claim) =>
    tasks.save(principal, body, claim),
  );
  return respond(answer.status, answer.body, { ...answer.headers });
});
