// Schemas: `SynkValidation`, in a module of its own so that ./envelopes.ts (the envelopes' schemas) and
// ./envelope-bodies.ts (their zod-free builders, which envelopes.ts re-exports) both read it without a cycle.
import { z } from 'zod';
import { bool, guid, id, int32, listOf, longText, shape, text } from './common';

/** `SynkValidation`: how the platform's sync engine took a saved record. */
export const SynkValidation = shape(
  'SynkValidation',
  {
    ID: id().optional(),
    DatType: int32().optional(),
    RefNumber: text().optional(),
    GUIDstring: text().optional(),
    GUID: guid().optional(),
    BSID: text().optional(),
    RefEntityBSID: text().optional(),
    Status: int32().optional().meta({ description: '0 Ok, 1 Warning (StatusString says which).' }),
    StatusString: text().optional(),
    SyncStatus: text().optional(),
    Messages: listOf(longText()),
    IsUpdate: bool().optional(),
    Codes: listOf(int32()),
    TransactionTypeDatTypeID: int32().optional(),
  },
  'How a saved record was taken for synchronisation: StatusString Ok and SyncStatus Ready when it was accepted.',
);
export type SynkValidation = z.infer<typeof SynkValidation>;
