// Test support: a Scan of a whole local table, the only way a test reads one (a test proving nothing of a tenant, a
// secret or a card number lies anywhere in the shared table). test/unit/build/table-scans.test.ts holds every Scan
// of the tests to it.
import { ScanCommand, type DynamoDBDocumentClient, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';

/**
 * Items per page. DynamoDB Local answers one request on a table at a time, and a page of DynamoDB's default size
 * (1 MB) costs it far more than its items: measured here on a table of 120,000 items (about the size the suites
 * leave), a page of 1 MB took 1,086 ms (median; at most 2.5 s), a page of 1,000 items 90 ms, of 100 items 15 ms. Two
 * such Scans at once held a Put behind them for 3.8 s, past the functions' 3 s request timeout (shared/aws-requests.ts):
 * with its resends the request answered 504 (a keyed payment of an integration test, a refund of an e2e test, in two
 * CI runs). Small pages also make the whole Scan faster (11 s against 43 s on that table).
 */
export const scanPageItems = 500;

type ScanInput = Omit<ScanCommandInput, 'Limit' | 'ExclusiveStartKey' | 'Segment' | 'TotalSegments'>;

/** Each page of a Scan of `input.TableName`, in small pages (`scanPageItems`); `FilterExpression` applies per page. */
export async function* scanPages(client: DynamoDBDocumentClient, input: ScanInput): AsyncGenerator<Record<string, unknown>[]> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(new ScanCommand({ ...input, Limit: scanPageItems, ExclusiveStartKey }));
    yield (page.Items ?? []) as Record<string, unknown>[];
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

/** Every item a Scan of `input.TableName` finds (strongly consistent unless `input` says otherwise). */
export const scanAll = async (client: DynamoDBDocumentClient, input: ScanInput): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  for await (const page of scanPages(client, { ConsistentRead: true, ...input })) items.push(...page);
  return items;
};
