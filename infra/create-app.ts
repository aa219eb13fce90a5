// Infra: assembles the CDK app (data stack, API stack, cdk-nag). infra/app.ts runs it for the CLI; the infra tests
// call it with their own context, so what they assert is exactly what `cdk synth` produces.
import { App, Validations, type AppProps, type Environment } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readAppConfig, type AppConfig } from './app-config';
import { ApiStack } from './stacks/api-stack';
import { DataStack } from './stacks/data-stack';

/** Stable names: renaming a stack makes CloudFormation create a new one (and, for data, a new table). */
export const dataStackName = 'BusinessPlatform-Data';
export const apiStackName = 'BusinessPlatform-Api';

export interface BusinessPlatformApp {
  readonly app: App;
  readonly config: AppConfig;
  readonly dataStack: DataStack;
  readonly apiStack: ApiStack;
}

/**
 * The environment the CLI gives the app: `cdk` always sets CDK_DEFAULT_REGION (from AWS_REGION or the profile,
 * else us-east-1) and CDK_DEFAULT_ACCOUNT when it finds credentials, so the stacks it synthesizes have a concrete
 * region. Unset (environment-agnostic) only when the app runs outside the CLI with neither variable.
 */
export const cliEnvironment = (variables: NodeJS.ProcessEnv = process.env): Environment | undefined => {
  const account = variables.CDK_DEFAULT_ACCOUNT;
  const region = variables.CDK_DEFAULT_REGION;
  return account || region ? { ...(account ? { account } : {}), ...(region ? { region } : {}) } : undefined;
};

export interface CreateAppOptions extends AppProps {
  /** The stacks' environment; the CLI's (cliEnvironment()) when not given. Tests pass one explicitly. */
  readonly env?: Environment;
}

export const createApp = ({ env = cliEnvironment(), ...props }: CreateAppOptions = {}): BusinessPlatformApp => {
  const app = new App(props);
  const config = readAppConfig(app.node);

  const tags = { service: 'business-platform-api', stage: config.stage };

  const dataStack = new DataStack(app, dataStackName, {
    ...(env ? { env } : {}),
    description: 'Business platform API: stateful resources (DynamoDB table, queues, webhook secret, secret-fields key, task schedules)',
    tags,
    removalPolicy: config.removalPolicy,
    deletionProtection: config.deletionProtection,
    stage: config.stage,
    functionRoleNamePrefix: apiStackName,
    terminationProtection: config.deletionProtection,
  });

  const apiStack = new ApiStack(app, apiStackName, {
    ...(env ? { env } : {}),
    description: 'Business platform API: functions, REST API, WAF and alarms',
    tags,
    table: dataStack.table,
    queues: dataStack.queues,
    webhookSecret: dataStack.webhookSecret,
    secretFieldsKey: dataStack.secretFieldsKey,
    scheduleGroupName: dataStack.scheduleGroupName,
    schedulerRole: dataStack.schedulerRole,
    auth: config.auth,
    settings: config.settings,
    logRemovalPolicy: config.removalPolicy,
    ...(config.alarmEmail ? { alarmEmail: config.alarmEmail } : {}),
  });

  // Every synth runs the AwsSolutions pack; any unacknowledged finding stops it. Acknowledgements sit next to the
  // construct they concern, each with its reason.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

  return { app, config, dataStack, apiStack };
};
