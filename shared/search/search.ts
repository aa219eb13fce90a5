// Domain mechanism: the one way every search of the API filters, sorts, pages and counts, answering the platform's
// PagedActionResults<T>. An area declares its search once (the filter members it applies, its sort fields); each
// request is first checked (`plan`, before any read), then the matching rows are sorted and cut into a page (`page`).
import { normaliseClaimValue } from '#shared/data/visible-text';
import { ValidationFailed, type FieldError } from '#shared/errors';
import { pagedActionResults } from '#shared/schemas/envelope-bodies';
import { defaultSearchResults, maxSearchResults } from '#shared/schemas/limits';
import { commonSearchFields, inWords } from '#shared/schemas/search-members';

export type Comparator<Row> = (a: Row, b: Row) => number;

/**
 * The most JSON a page's rows may take: 1 MB. Rows are the clients' data (a location may hold 16 KB of text, a
 * receipt header with its lines hundreds), so a page of MaxResults (500) rows could pass the 6 MB a Lambda function
 * may answer (a 502 from API Gateway), and an XML answer writes the same text up to five times longer (`&` as
 * `&amp;`): at 1 MB of JSON an XML page stays under it. A page that reaches it ends early, MoreToGet true; the next
 * starts after its LastRowNumber. A single row always fits.
 */
export const pageBudgetBytes = 1_000_000;

/** The longest prefix of `rows` within the page budget, one row at least. */
export const withinPageBudget = <R>(rows: readonly R[]): R[] => {
  const kept: R[] = [];
  let bytes = 0;
  for (const row of rows) {
    bytes += Buffer.byteLength(JSON.stringify(row));
    if (kept.length > 0 && bytes > pageBudgetBytes) break;
    kept.push(row);
  }
  return kept;
};

/** Members of every filter that the mechanism itself reads (paging, sorting, counting) or the stack checks (tenancy). */
export { commonSearchFields } from '#shared/schemas/search-members';

export interface SearchDefinition<Row> {
  /** What is searched, in words ("tenant locations"): named in the refusal of a filter it does not apply. */
  readonly subject: string;
  /** Every member of the operation's filter type, in declared order (the keys of its schema). */
  readonly filterFields: readonly string[];
  /** The filter members this search applies besides the common ones. Any other member that is set is refused. */
  readonly supports: readonly string[];
  /** Sort fields by public name (matched case-insensitively, trimmed); the first is the default. */
  readonly sortFields: readonly (readonly [name: string, comparator: Comparator<Row>])[];
  /** Orders the rows a sort field leaves equal, so that pages never overlap or skip a row. */
  readonly tieBreak: Comparator<Row>;
}

/** The members of a filter the mechanism reads. */
export interface SearchControls {
  readonly SortField?: string | undefined;
  readonly SortAsc?: boolean | undefined;
  readonly LastRowNumber?: number | undefined;
  readonly MaxResults?: number | undefined;
  readonly GetCountOnly?: boolean | undefined;
}

/** A checked request: how to order the matching rows and which of them to answer. */
export interface SearchPlan<Row> {
  readonly compare: Comparator<Row>;
  /** The sort field, as the search declares it (a search that reads an index in this order picks it by name). */
  readonly sortField: string;
  /** False when SortAsc is false. */
  readonly ascending: boolean;
  /** Rows to skip: the LastRowNumber sent. */
  readonly start: number;
  readonly maxResults: number;
  readonly countOnly: boolean;
}


export const defineSearch = <Row>(definition: SearchDefinition<Row>) => {
  const known = new Set(definition.filterFields);
  for (const field of [...commonSearchFields, ...definition.supports]) {
    if (!known.has(field)) throw new Error(`Search of ${definition.subject}: the filter has no member ${field}`);
  }
  const applied = new Set<string>([...commonSearchFields, ...definition.supports]);
  const notApplied = definition.filterFields.filter((field) => !applied.has(field));
  // Looked up by a name the client chose: a Map, so `__proto__` or `constructor` is just an unknown name.
  const sorts = new Map(definition.sortFields.map((sort) => [sort[0].toLowerCase(), sort]));
  const [defaultSort] = definition.sortFields;
  if (!defaultSort) throw new Error(`Search of ${definition.subject} has no sort field`);
  const sortNames = inWords(definition.sortFields.map(([name]) => name));

  /** Refuses what this search cannot do (every problem at once, each with its pointer), before anything is read. */
  const plan = (filter: SearchControls): SearchPlan<Row> => {
    const members = filter as Readonly<Record<string, unknown>>;
    const isSet = (field: string) => Object.hasOwn(members, field) && members[field] !== undefined;
    const errors: FieldError[] = [
      ...Object.keys(members)
        .filter((field) => !known.has(field) && members[field] !== undefined)
        .map((field) => ({ pointer: `/${field}`, detail: 'is not a known field (names are case-sensitive)' })),
      ...notApplied.filter(isSet).map((field) => ({ pointer: `/${field}`, detail: `does not apply to ${definition.subject}` })),
    ];

    const requestedSort = filter.SortField?.trim();
    const sort = requestedSort ? sorts.get(requestedSort.toLowerCase()) : defaultSort;
    if (!sort) errors.push({ pointer: '/SortField', detail: `must be ${sortNames}` });

    const start = filter.LastRowNumber ?? 0;
    if (!Number.isSafeInteger(start) || start < 0) errors.push({ pointer: '/LastRowNumber', detail: 'must be a whole number, 0 or more' });
    const maxResults = filter.MaxResults ?? defaultSearchResults;
    if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > maxSearchResults) {
      errors.push({ pointer: '/MaxResults', detail: `must be a whole number from 1 to ${maxSearchResults}` });
    }
    if (errors.length > 0 || !sort) throw new ValidationFailed(errors);

    const direction = filter.SortAsc === false ? -1 : 1;
    const { tieBreak } = definition;
    const [sortField, sortBy] = sort;
    return {
      compare: (a, b) => direction * (sortBy(a, b) || tieBreak(a, b)),
      sortField,
      ascending: direction === 1,
      start,
      maxResults,
      countOnly: filter.GetCountOnly ?? false,
    };
  };

  /**
   * One page of the matching rows, in the planned order, numbered from 1 over the whole result: MaxResults rows, or
   * fewer when they would pass the page budget. GetCountOnly gives the count and no rows; MoreToGet then says whether
   * any row lies after LastRowNumber.
   */
  const page = <R extends Row>(searchPlan: SearchPlan<Row>, matching: readonly R[]) => {
    const ordered = [...matching].sort(searchPlan.compare);
    const start = Math.min(searchPlan.start, ordered.length);
    const rows = searchPlan.countOnly
      ? []
      : withinPageBudget(ordered.slice(start, start + searchPlan.maxResults)).map((row, index) => ({ ...row, RowNumber: start + index + 1 }));
    return pagedActionResults(rows, {
      MoreToGet: start + rows.length < ordered.length,
      LastRowNumber: start + rows.length,
      TotalRecordCount: ordered.length,
    });
  };

  return { plan, page };
};

export type Search<Row> = ReturnType<typeof defineSearch<Row>>;

/**
 * A filter's search text: SearchString, or Search when SearchString is absent or blank (an XML or form client may
 * send it empty), normalised as names are compared (shared/data/visible-text.ts). The two given, not blank, and
 * different once normalised are ambiguous: a 400 at `/Search` (before, Search was silently ignored, and which one
 * won depended on the member's name; found by a hostile client).
 */
export const searchTextOf = (filter: { readonly SearchString?: string | undefined; readonly Search?: string | undefined }): string | undefined => {
  const [first, second] = [filter.SearchString, filter.Search].map((candidate) => (candidate === undefined ? undefined : normaliseClaimValue(candidate) || undefined));
  if (first !== undefined && second !== undefined && first !== second) {
    throw new ValidationFailed([{ pointer: '/Search', detail: 'differs from SearchString: send one of them (they are one member under two names)' }]);
  }
  return first ?? second;
};
