// Validation: the client's GUIDs, zod-free (functions bundle this; the schemas that state the GUID format are zod's).
/**
 * The all-zero GUID, .NET's `Guid.Empty`: what a typed client sends for a GUID it never set. Read as absent wherever a
 * client's GUID is kept or matched (before: the first payment that sent it took it, every later one was a 409
 * `guid-taken`, and two new receipt lines sending it were a 400; found by a hostile client).
 */
export const isEmptyGuid = (value: string | undefined): boolean => value !== undefined && /^0{8}-0{4}-0{4}-0{4}-0{12}$/.test(value);

/** A client's GUID, absent when it is the all-zero one. */
export const clientGuid = (value: string | undefined): string | undefined => (isEmptyGuid(value) ? undefined : value);
