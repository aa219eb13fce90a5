// Operations manifest: scheduled tasks.
import { ScheduledTask, ScheduledTaskXml } from '../schemas/scheduled-task';
import { bodyProblems, pendingTableAccess, type Operation } from './operation';
export const scheduledTaskSave = {
  operationId: 'scheduledTaskSave',
  summary: 'Save a scheduled task',
  area: 'scheduled-tasks',
  method: 'POST',
  path: '/ScheduledTasks/',
  handler: 'functions/not-implemented.ts',
  auth: 'bearer',
  media: 'standard',
  implemented: false,
  requestBody: { schema: ScheduledTask, required: true, xmlSchema: ScheduledTaskXml },
  problems: [...bodyProblems, 404, 409, 501],
  tableAccess: pendingTableAccess,
} as const satisfies Operation;

export const scheduledTaskOperations = [scheduledTaskSave] as const;
