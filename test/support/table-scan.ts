// Test support: a Scan of a whole local table, the only way a test reads one (a test proving nothing of a tenant, a
// secret or a card number lies anywhere in the shared table). test/unit/build/table-scans.test.ts holds every Scan
// of the tests to it.
import { ScanCommand, type DynamoDBDocumentClient, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { scanPageItems } from '#infra/local/scan-pages';

type ScanInput = Omit<ScanCommandInput, 'Limit' | 'ExclusiveStartKey' | 'Segment' | 'TotalSegments'>;

/** Each page of a Scan of `input.TableName`, in small pages (`scanPageItems`: why, there); `FilterExpression` applies per page. */
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
