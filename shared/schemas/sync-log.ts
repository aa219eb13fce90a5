// Schemas: SyncLog, the record of an adaptor's last import and export. The spec gives it twice: with its dates as
// plain strings (payments, delivery receipts) and as ISO date-times with offset (scheduled tasks). The two variants
// share every other field and differ only in the type of the five date fields.
import { z } from 'zod';
import { calendarText, dateTime, id, longText, shape, text, utcOffset } from './common';

const syncLogFields = {
  ID: id().optional(),
  AdaptorID: id().optional(),
  BSID: text().optional(),
  Status: text().optional(),
  Details: longText().optional(),
  SyncCode: text().optional(),
  LastImportDateTime_offset: utcOffset().optional(),
  LastExportDateTime_offset: utcOffset().optional(),
  LastModifiedDateTime_offset: utcOffset().optional(),
};

const syncLogDates = <T extends z.ZodType>(date: () => T) => ({
  LastImportDateTime: date().optional(),
  LastExportDateTime: date().optional(),
  LastImportDateTime_utc: date().optional(),
  LastExportDateTime_utc: date().optional(),
  LastModifiedDateTime_utc: date().optional(),
});

/** SyncLog of payments and delivery receipts: dates are strings, as the spec types them there (an ISO date must exist). */
export const SyncLog = shape('SyncLog', { ...syncLogFields, ...syncLogDates(calendarText) });
export type SyncLog = z.infer<typeof SyncLog>;

/** SyncLog of scheduled tasks (inventory classes): dates are ISO 8601 date-times with offset. */
export const SyncLogDateTime = shape(
  'SyncLogDateTime',
  { ...syncLogFields, ...syncLogDates(dateTime) },
  'SyncLog as scheduled tasks carry it: the date fields are ISO 8601 date-times with offset.',
);
export type SyncLogDateTime = z.infer<typeof SyncLogDateTime>;
