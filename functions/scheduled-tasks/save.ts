// Entry: POST /ScheduledTasks/: creates (201 with Location) when ID is 0 or absent, otherwise updates (200). The
// task is stored first, then its schedule is brought in line; a scheduler that fails leaves it Pending (still 2xx).
import { httpOperation, respond } from '#shared/http/operation';
import { locationOf } from '#shared/http/location';
import { scheduledTaskGet, scheduledTaskSave } from '#shared/compiled/operations/scheduled-tasks';
import { actionResults } from '#shared/schemas/envelope-bodies';
import { scheduledTaskService } from '#shared/scheduled-tasks/wiring';

const tasks = scheduledTaskService();

export const handler = httpOperation(scheduledTaskSave).handler(async ({ principal, body }) => {
  const { created, task } = await tasks.save(principal, body);
  return created
    ? respond(201, actionResults(task), { Location: locationOf(scheduledTaskGet, { id: task.ID as number }) })
    : respond(200, actionResults(task));
});
