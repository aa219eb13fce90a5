// OpenAPI examples: the platform's answer envelope (\`ActionResults<T>\`, \`EditResponse<T>\`): a value and its outcome.
import type { JsonObject } from '../types';

export const succeeded = { IsSuccess: true, Messages: [] };

/** \`{ Value, IsSuccess: true, Messages: [] }\`. */
export const envelope = (value: JsonObject): JsonObject => ({ Value: value, ...succeeded });

/** A search's answer holding every match (\`PagedActionResults<T>\`): rows numbered from 1, nothing more to get. */
export const page = (rows: readonly JsonObject[]): JsonObject => ({
  MoreToGet: false,
  LastRowNumber: rows.length,
  Count: rows.length,
  TotalRecordCount: rows.length,
  Value: rows.map((row, index) => ({ ...row, RowNumber: index + 1 })),
  ...succeeded,
});
