// Schemas: the bodies of the platform's response envelopes (their schemas are in ./envelopes.ts), built the one way
// every handler answers. Imports no zod, so a function that answers an envelope does not bundle zod.
import type { SynkValidation } from './synk-validation';

const noExtras = {} as Record<never, never>;

/** Members the record does not have are left out rather than carried as undefined. */
const withoutUndefined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;

const succeeded = () => ({ IsSuccess: true as const, Messages: [] as string[] });

/** An `ActionResults<T>` body. */
export const actionResults = <T>(value: T) => ({ Value: value, ...succeeded() });

/** An `EditResponse<T>` body; `extras` come before `Value`, as InventoryEditResponse has them. */
export const editResponse = <T, E extends object = Record<never, never>>(value: T, extras?: E) => ({
  ...(extras ?? (noExtras as E)),
  Value: value,
  ...succeeded(),
});

/** Where a page lies in the whole result (computed by shared/search/). */
export interface PagePosition {
  readonly MoreToGet: boolean;
  readonly LastRowNumber: number;
  readonly TotalRecordCount: number;
}

/** A `PagedActionResults<T>` body: `Count` is the number of rows given. */
export const pagedActionResults = <T, E extends object = Record<never, never>>(rows: T[], page: PagePosition, extras?: E) => ({
  MoreToGet: page.MoreToGet,
  LastRowNumber: page.LastRowNumber,
  Count: rows.length,
  TotalRecordCount: page.TotalRecordCount,
  ...(extras ?? (noExtras as E)),
  Value: rows,
  ...succeeded(),
});

/** The SynkValidation of a record the platform accepted: Status 0, StatusString `Ok`, SyncStatus `Ready` (its samples). */
export const acceptedSynkValidation = (
  record: Pick<SynkValidation, 'ID' | 'DatType' | 'RefNumber' | 'GUIDstring' | 'GUID' | 'IsUpdate' | 'TransactionTypeDatTypeID'>,
): SynkValidation => {
  const { ID, DatType, RefNumber, GUIDstring, GUID, IsUpdate, TransactionTypeDatTypeID } = record;
  return withoutUndefined<SynkValidation>({
    ...{ ID, DatType, RefNumber, GUIDstring, GUID, Status: 0, StatusString: 'Ok', SyncStatus: 'Ready' },
    ...{ Messages: [], IsUpdate, Codes: [], TransactionTypeDatTypeID },
  });
};

/** A `SynkSaveQueueResponse<T>` body: the saved record, how it was taken, not queued unless said. */
export const synkSaveQueueResponse = <T>(
  object: T,
  validation: SynkValidation,
  queue: { readonly isQueued?: boolean; readonly isQueuePrompt?: boolean } = {},
) => ({
  Object: object,
  IsQueued: queue.isQueued ?? false,
  IsQueuePrompt: queue.isQueuePrompt ?? false,
  Value: validation,
  ...succeeded(),
});
