// Entry: POST /ScheduledTasks/: creates (201 with Location) when ID is 0 or absent, otherwise updates (200). The
// task is stored first, then its schedule is brought in line; a scheduler that fails leaves it Pending (still 2xx).
import { httpOperation, respond } from '../../shared/http/operation';
import { apiBasePath } from '../../shared/operations/routes';
import { scheduledTaskSave } from '../../shared/compiled/operations/scheduled-tasks';
import { actionResults } from '../../shared/schemas/envelope-bodies';
import { scheduledTaskService } from '../../shared/scheduled-tasks/wiring';

const tasks = scheduledTaskService();

export const handler = httpOperation(scheduledTaskSave).handler(async ({ principal, body }) => {
  const { created, task } = await tasks.save(principal, body);
  return created
    ? respond(201, actionResults(task), { Location: `${apiBasePath}/ScheduledTasks/${task.ID}` })
    : respond(200, actionResults(task));
});
