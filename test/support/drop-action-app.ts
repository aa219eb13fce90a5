// Test support: a test-only entry of the CDK app (`cdk synth --app "npx tsx test/support/drop-action-app.ts"`):
// the real app (infra/create-app.ts), plus an Aspect that removes one action from one function's role policy, as
// a throwaway copy would. Context `dropAction=<construct id>=<action>` (`TenantLocationDelete=dynamodb:PutItem`), or
// several joined by `,`; `throwaway-assembly.ts` synthesizes the one assembly the e2e tier's template tests share.
// The operations manifest is left as it is: a local stack that still allowed the action would be reading the
// manifest, not the template. With `gatewayResponseTemplate=<ResponseType>=<template>` it also replaces the body
// template of one gateway response (the shared definitions unchanged), so a local gateway that still answered with
// the shared definitions would be reading code, not the template.
import { Aspects, Stack, type IAspect } from 'aws-cdk-lib';
import { CfnGatewayResponse } from 'aws-cdk-lib/aws-apigateway';
import { CfnPolicy } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import { createApp } from '#infra/create-app';

interface Statement {
  readonly Action?: string | string[];
}

/** Removes `action` from every statement of the role policies under the construct `constructId`. */
export class DropAction implements IAspect {
  constructor(
    private readonly constructId: string,
    private readonly action: string,
  ) {}

  visit(node: IConstruct): void {
    if (!(node instanceof CfnPolicy) || node.node.path.split('/')[1] !== this.constructId) return;
    // Read the document only to find the statements; the override keeps every resource token as CDK wrote it.
    const document = Stack.of(node).resolve(node.policyDocument) as { Statement?: Statement[] };
    (document.Statement ?? []).forEach((statement, index) => {
      const actions = Array.isArray(statement.Action) ? statement.Action : statement.Action ? [statement.Action] : [];
      if (!actions.includes(this.action)) return;
      node.addPropertyOverride(`PolicyDocument.Statement.${index}.Action`, actions.filter((action) => action !== this.action));
    });
  }
}

/** Replaces the body templates of the gateway response of one type. */
export class ReplaceGatewayResponseTemplate implements IAspect {
  constructor(
    private readonly responseType: string,
    private readonly template: string,
  ) {}

  visit(node: IConstruct): void {
    if (!(node instanceof CfnGatewayResponse) || node.responseType !== this.responseType) return;
    node.responseTemplates = { 'application/problem+json': this.template };
  }
}

const { app } = createApp();
const drops = ((app.node.tryGetContext('dropAction') as string | undefined) ?? '').split(',').filter(Boolean);
if (drops.length === 0) throw new Error('Set -c dropAction=<construct id>=<action>[,<construct id>=<action>...]');
for (const drop of drops) {
  const separator = drop.indexOf('=');
  if (separator <= 0) throw new Error(`Set -c dropAction=<construct id>=<action>; got "${drop}"`);
  Aspects.of(app).add(new DropAction(drop.slice(0, separator), drop.slice(separator + 1)));
}

const replaced = app.node.tryGetContext('gatewayResponseTemplate') as string | undefined;
if (replaced !== undefined) {
  const at = replaced.indexOf('=');
  if (at <= 0) throw new Error('Set -c gatewayResponseTemplate=<ResponseType>=<template>');
  Aspects.of(app).add(new ReplaceGatewayResponseTemplate(replaced.slice(0, at), replaced.slice(at + 1)));
}
