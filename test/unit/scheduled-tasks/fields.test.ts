// Unit tests of the task item's field table (shared/scheduled-tasks/fields.ts): one table with an owner per field,
// checked against the schema (the zod shape, with the mechanism tenant locations use, `fieldsOf`) and against the
// JSON Schema the OpenAPI document publishes, and the lists every part of the area reads from it.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fieldsOf } from '#shared/data/codec';
import { openApiJsonUrl } from '#shared/openapi/document';
import { ScheduledTask, ScheduledTaskXml } from '#shared/schemas/scheduled-task';
import {
  clientFields,
  fieldsStoredElsewhere,
  runOwnedFields,
  runReadFields,
  scheduleFields,
  taskFieldTable,
  taskFields,
} from '#shared/scheduled-tasks/fields';

const sorted = (names: readonly string[]) => [...names].sort();

describe('the task field table', () => {
  it('names every field of the ScheduledTask schema once: own fields, or stored elsewhere (sealed adaptor, run items)', () => {
    const schemaFields = fieldsOf<ScheduledTask>(ScheduledTask);
    expect(sorted([...taskFields, ...fieldsStoredElsewhere])).toEqual(sorted(schemaFields));
    expect(new Set(taskFields).size).toBe(taskFields.length);
    // The XML form carries the same fields without the adaptor.
    expect(sorted(fieldsOf<ScheduledTaskXml>(ScheduledTaskXml))).toEqual(sorted(schemaFields.filter((name) => name !== 'AdaptorDetails')));
  });

  it('matches the JSON Schema of the OpenAPI document', () => {
    const document = JSON.parse(readFileSync(openApiJsonUrl, 'utf8')) as {
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    const properties = Object.keys(document.components.schemas.ScheduledTask?.properties ?? {});
    expect(sorted([...taskFields, ...fieldsStoredElsewhere])).toEqual(sorted(properties));
  });

  it('gives every field one owner of the four', () => {
    for (const [name, field] of Object.entries(taskFieldTable)) {
      expect([name, ['client', 'server', 'scheduleSync', 'runRecorder'].includes(field.owner)]).toEqual([name, true]);
    }
  });

  it('derives the lists the save, the repository and the run recorder read', () => {
    expect(sorted(clientFields)).toEqual(
      sorted(['Name', 'NameFriendlyName', 'TimeOfDay', 'TimeZone', 'IsEnabled', 'IsActive', 'IsRecurringSchedule', 'Interval', 'IntervalType', 'RecurrenceType', 'TaskTypeID', 'DocumentID', 'DatTypeID', 'DatTypeFriendlyName', 'WorkflowID', 'IDs']),
    );
    expect(sorted(scheduleFields)).toEqual(sorted(['TimeOfDay', 'TimeZone', 'IsRecurringSchedule', 'Interval', 'IntervalType', 'RecurrenceType']));
    expect(sorted(runReadFields)).toEqual(
      sorted(['Version', 'IsEnabled', 'IsActive', 'IsRecurringSchedule', 'Interval', 'IntervalType', 'RecurrenceType', 'TimeOfDay', 'TimeZone', 'TaskTypeID', 'LastRunDateTime_utc', 'NextRunDateTime_utc', 'Status']),
    );
    expect(runOwnedFields).toEqual(['LastRunDateTime_utc']);
    // A client never writes what the server, the sync or the runs own.
    for (const name of clientFields) expect(taskFieldTable[name].owner).toBe('client');
    expect(taskFieldTable.ScheduleState.owner).toBe('scheduleSync');
  });
});
