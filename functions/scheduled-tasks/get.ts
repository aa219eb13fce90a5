// Entry: GET /ScheduledTasks/{id}: the caller's task with its latest runs (404 for any other tenant's).
import { httpOperation } from '#shared/http/operation';
import { scheduledTaskGet } from '#shared/compiled/operations/scheduled-tasks';
import { actionResults } from '#shared/schemas/envelope-bodies';
import { scheduledTaskReader } from '#shared/scheduled-tasks/wiring';

const tasks = scheduledTaskReader();

export const handler = httpOperation(scheduledTaskGet).handler(async ({ principal, path }) => actionResults(await tasks.get(principal, path.id)));
