// Infra: the one place a function gets the table. The grant and TABLE_NAME are set in the same call, from the
// manifest's tableAccess, so a function can never know the table without the rights it was given, or the reverse.
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { tableDefinition } from '../../shared/data/table';
import type { TableAction } from '../../shared/operations';
import type { OperationFunction } from './operation-function';

/** Of the manifest's actions, the ones DynamoDB authorises against an index ARN (reads through a GSI). */
const indexActions: ReadonlySet<TableAction> = new Set<TableAction>(['dynamodb:Query']);

export const grantTableAccess = (
  operationFunction: OperationFunction,
  table: ITable,
  actions: readonly TableAction[],
): void => {
  if (actions.length === 0) return;
  const unique = [...new Set(actions)].sort();

  operationFunction.role.addToPrincipalPolicy(
    new PolicyStatement({ effect: Effect.ALLOW, actions: unique, resources: [table.tableArn] }),
  );

  // Each index is named rather than `${arn}/index/*`: a GSI added later is not readable until it is declared in
  // shared/data/table.ts, and the policy holds no wildcard at all.
  const onIndexes = unique.filter((action) => indexActions.has(action));
  if (onIndexes.length > 0) {
    operationFunction.role.addToPrincipalPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: onIndexes,
        resources: tableDefinition.globalSecondaryIndexes.map(
          (index) => `${table.tableArn}/index/${index.indexName}`,
        ),
      }),
    );
  }

  operationFunction.function.addEnvironment('TABLE_NAME', table.tableName);
};
