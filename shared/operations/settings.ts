// Operations manifest: stack settings, defined once. A setting is a deploy-time value some functions read from
// their environment; the CDK app takes it from context (`-c <contextKey>=<value>` or cdk.json) and the local stack
// from its own environment (`<variable>=... npm start`), both checked here, and each function gets only the settings
// its manifest entry names.

import { environmentVariables } from '#shared/environment';

export interface StackSettingDefinition {
  /** The function's environment variable. */
  readonly variable: string;
  /** The CDK context key. */
  readonly contextKey: string;
  /** Used when neither context nor environment gives a value. */
  readonly defaultValue: string;
  /** Why a value is refused, or undefined when it is valid. */
  readonly problem: (value: string) => string | undefined;
  readonly description: string;
}

/** A percentage from 0 to 1,000 with at most two decimals (`0`, `2.5`, `10`). */
const percentage = (value: string): string | undefined =>
  /^(?:0|[1-9]\d{0,3})(?:\.\d{1,2})?$/.test(value) && Number(value) <= 1_000 ? undefined : 'must be a percentage from 0 to 1000 with at most two decimals';

export const stackSettings = {
  overReceiptTolerance: {
    variable: 'RECEIPT_OVER_RECEIPT_TOLERANCE_PERCENT',
    contextKey: 'overReceiptTolerancePercent',
    defaultValue: '0',
    problem: percentage,
    description: 'How far a delivery-receipt line may be received beyond QuantityOrdered, in percent (0: not at all).',
  },
  /**
   * Every function's, not an operation's: the API stack gives it to all of them. Tracing costs cold-start time
   * (test/bench/README.md, "Tracing"), so a stack may trade its traces for it.
   */
  tracing: {
    variable: environmentVariables.tracing,
    contextKey: 'tracing',
    defaultValue: 'true',
    problem: (value: string) => (value === 'true' || value === 'false' ? undefined : 'must be true or false'),
    description: 'Whether every function traces its AWS SDK calls with X-Ray (true: Tracing.ACTIVE; false: no tracing and a faster cold start).',
  },
} as const satisfies Record<string, StackSettingDefinition>;

export type StackSetting = keyof typeof stackSettings;

/** The checked value of every setting from a source (CDK context or the local environment); throws on a bad one. */
export const readStackSettings = (valueOf: (definition: StackSettingDefinition) => string | undefined): Readonly<Record<StackSetting, string>> => {
  const values = new Map<StackSetting, string>();
  for (const [name, definition] of Object.entries(stackSettings) as [StackSetting, StackSettingDefinition][]) {
    const value = valueOf(definition) ?? definition.defaultValue;
    const problem = definition.problem(value);
    if (problem !== undefined) throw new Error(`${definition.contextKey} (${definition.variable}) ${problem}; got "${value}"`);
    values.set(name, value);
  }
  return Object.fromEntries(values) as Record<StackSetting, string>;
};

/** The environment a function's settings give it. */
export const settingsEnvironment = (names: readonly StackSetting[] | undefined, values: Readonly<Record<StackSetting, string>>): Record<string, string> =>
  Object.fromEntries((names ?? []).map((name) => [stackSettings[name].variable, values[name]]));
