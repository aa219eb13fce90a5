// Local stack: how a Scan of a local table is paged, for everything that scans one (the tests' test/support/table-scan.ts,
// `npm run local -- items`, the index-lag replica's copy). A module of its own: a test that scans loads nothing else.

/**
 * Items per page of a Scan of a local table. DynamoDB Local answers one request on a table at a time, and a page of
 * DynamoDB's default size (1 MB) costs it far more than its items: measured on a table of 120,000 items (about what
 * the test suites leave), a 1-MB page took 1,086 ms (median; at most 2.5 s), a page of 1,000 items 90 ms, of 100
 * items 15 ms. Two such Scans at once held a Put behind them 3.8 s, past the functions' 3 s request timeout
 * (shared/aws-requests.ts): with its resends the request answered 504 (a keyed payment of an integration test, a
 * refund of an e2e test, in two CI runs). Small pages also make the whole Scan faster (11 s against 43 s on that table).
 */
export const scanPageItems = 500;
