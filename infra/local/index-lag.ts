// Local stack: the `index-lag` fault as a global secondary index lags. DynamoDB feeds a table's GSIs from its writes
// asynchronously, so for a moment after a write a Query on an index may miss a new item, show an item as it was
// (its old attributes, its old place in the index, a filter it no longer passes) or still show a deleted one.
// DynamoDB Local's indexes are current at once. While a rule lags an index, the stack keeps a replica of the table,
// with the table's key schema and indexes, fed from the table's own stream `ms` late (as AWS feeds an index from the
// table's changes); a lagged Query reads the replica's index in place of the table's, and DynamoDB Local evaluates it
// there as it would on the table (key condition, filter, order, Limit, paging). A read of the table itself that is not
// strongly consistent lags the same way (DynamoDB may answer it from a replica of the partition that has not applied
// the last writes): it is read on the replica's table (edge-faults.ts `laggedReadOf`). Every write counts, whoever
// made it: the functions', the tests', the tools'.
//
// The replica is a table of the same DynamoDB Local named `<table>-index-lag`; the table's stream (NEW_IMAGE) is
// turned on for the time a rule lags and off after, when the replica is deleted. Changes are read every `pollMs`
// and applied in their order, each `ms` after it was read. Each read takes a fresh iterator after the last record
// read: DynamoDB Local numbers stream records across all its tables, and an iterator is refused
// (TrimmedDataAccessException) once another table's write has taken the number it points at, which can happen between
// taking the iterator and reading with it: such a read is made again with a fresh iterator.
import { isJsonObject } from '#shared/openapi/types';
import { scanPageItems } from './scan-pages';

type Json = Record<string, unknown>;

export interface IndexLagOptions {
  /** DynamoDB Local's own endpoint (not the edge's). */
  readonly endpoint: string;
  /** The tables whose indexes may lag. */
  readonly tables: readonly string[];
  /** An access key DynamoDB Local accepts (it checks none of the signature). */
  readonly accessKeyId: string;
  readonly region: string;
  readonly log: (line: string) => void;
  /** How often the stream is read (default 50 ms): the lag is `ms` to `ms` + this. */
  readonly pollMs?: number;
}

/** The replica's name: a name DynamoDB allows that no table of the template can have (CDK names carry no dots). */
export const replicaTableName = (table: string): string => `${table}-index-lag`;

/** A change of the table, applied to the replica when due. */
interface Change {
  readonly due: number;
  readonly put?: Json;
  readonly delete?: Json;
}

/** One JSON-protocol call to DynamoDB Local (or its streams API, on the same port). */
const call = async (options: IndexLagOptions, target: string, input: Json): Promise<Json> => {
  const response = await fetch(options.endpoint, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.0',
      'X-Amz-Target': target,
      Authorization: `AWS4-HMAC-SHA256 Credential=${options.accessKeyId}/20200101/${options.region}/dynamodb/aws4_request, SignedHeaders=host, Signature=0`,
    },
    body: JSON.stringify(input),
  });
  const answer = (await response.json()) as Json;
  if (!response.ok) throw new Error(`${target}: ${String(answer.__type ?? response.status)} ${String(answer.Message ?? answer.message ?? '')}`.trim());
  return answer;
};
const dynamodb = (options: IndexLagOptions, operation: string, input: Json) => call(options, `DynamoDB_20120810.${operation}`, input);
const streams = (options: IndexLagOptions, operation: string, input: Json) => call(options, `DynamoDBStreams_20120810.${operation}`, input);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What CreateTable needs of a table's description to make a table of the same keys and global secondary indexes. */
const replicaDefinition = (table: Json, name: string): Json => {
  const indexes = Array.isArray(table.GlobalSecondaryIndexes) ? (table.GlobalSecondaryIndexes as Json[]) : [];
  return {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: table.KeySchema,
    AttributeDefinitions: table.AttributeDefinitions,
    ...(indexes.length > 0
      ? { GlobalSecondaryIndexes: indexes.map((index) => ({ IndexName: index.IndexName, KeySchema: index.KeySchema, Projection: index.Projection })) }
      : {}),
  };
};

/** The replica of one table: created, filled, then fed from the table's stream until stopped. */
class Replica {
  readonly name: string;
  /** The open shards being read, each with the sequence number of its last record read (none yet: from its start). */
  private readonly shardsRead = new Map<string, string | undefined>();
  private readonly closedShards = new Set<string>();
  private readonly changes: Change[] = [];
  private streamArn = '';
  private enabledStream = false;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly options: IndexLagOptions,
    private readonly table: string,
    private readonly lagMs: () => number,
  ) {
    this.name = replicaTableName(table);
  }

  /** Turns the table's stream on, makes the replica as the table stands, and starts feeding it. */
  async start(): Promise<void> {
    const { options } = this;
    let { Table: table } = (await dynamodb(options, 'DescribeTable', { TableName: this.table })) as { Table: Json };
    const stream = table.StreamSpecification as { StreamEnabled?: boolean } | undefined;
    // A stream of the table's own would be read from its start (a day of changes replayed): not supported.
    if (stream?.StreamEnabled) throw new Error(`${this.table} has a stream of its own; index lag needs one it turns on itself`);
    await dynamodb(options, 'UpdateTable', { TableName: this.table, StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } });
    this.enabledStream = true;
    ({ Table: table } = (await dynamodb(options, 'DescribeTable', { TableName: this.table })) as { Table: Json });
    this.streamArn = String(table.LatestStreamArn);
    await this.dropReplica();
    await dynamodb(options, 'CreateTable', replicaDefinition(table, this.name));
    // The stream (new: it holds only what is written from now on) first, then the copy: a write made during the copy
    // is applied again from the stream, its image then the newest.
    await this.findShards();
    await this.copy();
    this.loop = this.feed();
  }

  /** Stops feeding, deletes the replica and turns off the stream it turned on. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop?.catch(() => undefined);
    await this.dropReplica().catch((error: unknown) => this.options.log(`[index-lag] ${this.name} not deleted: ${(error as Error).message}`));
    if (this.enabledStream) {
      await dynamodb(this.options, 'UpdateTable', { TableName: this.table, StreamSpecification: { StreamEnabled: false } }).catch((error: unknown) =>
        this.options.log(`[index-lag] the stream of ${this.table} left on: ${(error as Error).message}`),
      );
    }
  }

  private async dropReplica(): Promise<void> {
    try {
      await dynamodb(this.options, 'DeleteTable', { TableName: this.name });
    } catch (error) {
      if (!/ResourceNotFoundException/.test((error as Error).message)) throw error;
    }
  }

  private async shards(): Promise<Json[]> {
    const shards: Json[] = [];
    let start: unknown;
    do {
      const { StreamDescription: description } = (await streams(this.options, 'DescribeStream', {
        StreamArn: this.streamArn,
        ...(start ? { ExclusiveStartShardId: start } : {}),
      })) as { StreamDescription: Json };
      shards.push(...((description.Shards as Json[] | undefined) ?? []));
      start = description.LastEvaluatedShardId;
    } while (start);
    return shards;
  }

  /** The table as it stands, into the replica (a scan in small pages, 25 items a batch, unprocessed items sent again). */
  private async copy(): Promise<void> {
    let start: unknown;
    do {
      const page = await dynamodb(this.options, 'Scan', { TableName: this.table, Limit: scanPageItems, ...(start ? { ExclusiveStartKey: start } : {}) });
      const items = (page.Items as Json[] | undefined) ?? [];
      for (let offset = 0; offset < items.length; offset += 25) {
        let requests: unknown[] = items.slice(offset, offset + 25).map((item) => ({ PutRequest: { Item: item } }));
        while (requests.length > 0) {
          const { UnprocessedItems: unprocessed } = await dynamodb(this.options, 'BatchWriteItem', { RequestItems: { [this.name]: requests } });
          requests = isJsonObject(unprocessed) && Array.isArray(unprocessed[this.name]) ? (unprocessed[this.name] as unknown[]) : [];
        }
      }
      start = page.LastEvaluatedKey;
    } while (start);
  }

  /** Reads the stream and applies each change once it is due, until stopped. */
  private async feed(): Promise<void> {
    const pollMs = this.options.pollMs ?? 50;
    while (!this.stopped) {
      try {
        await this.read();
        await this.applyDue();
      } catch (error) {
        this.options.log(`[index-lag] ${this.name}: ${(error as Error).message}`);
      }
      await sleep(pollMs);
    }
  }

  /** Reads every open shard after its last record read; a shard that closed gives way to its children. */
  private async read(): Promise<void> {
    let shardClosed = false;
    for (const [shardId, last] of this.shardsRead) {
      const page = await this.records(shardId, last);
      const due = Date.now() + this.lagMs();
      let read = last;
      for (const record of (page.Records as Json[] | undefined) ?? []) {
        const change = isJsonObject(record.dynamodb) ? record.dynamodb : {};
        if (record.eventName === 'REMOVE') this.changes.push({ due, delete: change.Keys as Json });
        else if (isJsonObject(change.NewImage)) this.changes.push({ due, put: change.NewImage });
        read = String(change.SequenceNumber);
      }
      this.shardsRead.set(shardId, read);
      if (typeof page.NextShardIterator !== 'string') {
        this.shardsRead.delete(shardId);
        this.closedShards.add(shardId);
        shardClosed = true;
      }
    }
    if (shardClosed || this.shardsRead.size === 0) await this.findShards();
  }

  /**
   * The records of a shard after `last` (from its start when none was read). DynamoDB Local refuses an iterator
   * (TrimmedDataAccessException) once a write of any of its tables has taken the number the iterator points at, even
   * between GetShardIterator and GetRecords; the shard's records are all still there, so a fresh iterator reads them.
   */
  private async records(shardId: string, last: string | undefined, attempts = 20): Promise<Json> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const { ShardIterator: iterator } = await streams(this.options, 'GetShardIterator', {
          StreamArn: this.streamArn,
          ShardId: shardId,
          ...(last === undefined ? { ShardIteratorType: 'TRIM_HORIZON' } : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: last }),
        });
        return await streams(this.options, 'GetRecords', { ShardIterator: iterator });
      } catch (error) {
        if (attempt >= attempts || !/TrimmedDataAccessException/.test((error as Error).message)) throw error;
      }
    }
  }

  /** The shards not read yet (at the start, or after one closed: DynamoDB rolls them over), each from its start. */
  private async findShards(): Promise<void> {
    for (const shard of await this.shards()) {
      const shardId = String(shard.ShardId);
      if (this.shardsRead.has(shardId) || this.closedShards.has(shardId)) continue;
      this.shardsRead.set(shardId, undefined);
    }
  }

  private async applyDue(): Promise<void> {
    while (this.changes.length > 0 && (this.changes[0] as Change).due <= Date.now()) {
      const change = this.changes[0] as Change;
      if (change.put) await dynamodb(this.options, 'PutItem', { TableName: this.name, Item: change.put });
      else if (change.delete) await dynamodb(this.options, 'DeleteItem', { TableName: this.name, Key: change.delete });
      this.changes.shift();
    }
  }
}

/**
 * The lagging indexes of the stack's tables: `setLag(ms)` starts the replicas (or changes their lag for the changes
 * read from then on), `setLag(0)` stops and deletes them; `replicaOf(table)` is the table a lagged Query reads.
 */
export class IndexLag {
  private lagMs = 0;
  private replicas: Map<string, Replica> | undefined;
  private settled: Promise<void> = Promise.resolve();

  constructor(private readonly options: IndexLagOptions) {}

  /** The longest lag the rules ask for; 0 turns the lag off. Changes are made one at a time, in order. */
  setLag(ms: number): Promise<void> {
    this.settled = this.settled.then(() => this.apply(ms)).catch((error: unknown) => this.options.log(`[index-lag] not started: ${(error as Error).message}`));
    return this.settled;
  }

  /** Resolves once every change of the lag asked for so far is in place (a write waits for it: it must reach the stream). */
  ready(): Promise<void> {
    return this.settled;
  }

  /** The replica a lagged Query on `table`'s indexes reads, or undefined when the lag is off or the table is not the stack's. */
  async replicaOf(table: string): Promise<string | undefined> {
    await this.settled;
    return this.replicas?.get(table)?.name;
  }

  close(): Promise<void> {
    return this.setLag(0);
  }

  private async apply(ms: number): Promise<void> {
    this.lagMs = ms;
    if (ms > 0 && !this.replicas) {
      const replicas = new Map<string, Replica>();
      try {
        for (const table of this.options.tables) {
          const replica = new Replica(this.options, table, () => this.lagMs);
          replicas.set(table, replica);
          await replica.start();
        }
      } catch (error) {
        for (const replica of replicas.values()) await replica.stop();
        throw error;
      }
      this.replicas = replicas;
      this.options.log(`[index-lag] on: ${[...replicas.values()].map((replica) => replica.name).join(', ')} fed ${ms} ms late`);
    } else if (ms === 0 && this.replicas) {
      const replicas = this.replicas;
      this.replicas = undefined;
      for (const replica of replicas.values()) await replica.stop();
      this.options.log('[index-lag] off: every index is read on its table again');
    }
  }
}
