// Infra: the one place a function gets the table. The statements and TABLE_NAME come together from the shared
// table grant (shared/operations/grants.ts), the same definition the local stack enforces, so a function can never
// know the table without the rights it was given, or the reverse, and the deployed role matches what tests ran.
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { tableGrant, type FunctionGrants } from '#shared/operations/index';
import type { OperationFunction } from './operation-function';

/** Grants the function its manifest `tableAccess` on the table and its `tableIndexes` by name, and sets TABLE_NAME. */
export const grantTableAccess = (
  operationFunction: OperationFunction,
  table: ITable,
  access: Pick<FunctionGrants, 'tableAccess' | 'tableIndexes'>,
): void => {
  operationFunction.grant(
    tableGrant({ actions: access.tableAccess, indexes: access.tableIndexes ?? [] }, { name: table.tableName, arn: table.tableArn }),
  );
};
