// Unit tests of stack settings (shared/operations/settings.ts): one definition gives the variable, the context key,
// the default and the check, for the CDK app (context) and the local stack (its environment) alike.
import { describe, expect, it } from '@jest/globals';
import { readStackSettings, settingsEnvironment, stackSettings } from '#shared/operations/settings';

const fromEnvironment = (env: Record<string, string>) => readStackSettings((definition) => env[definition.variable]);

describe('stack settings', () => {
  it('defaults when the source gives nothing', () => {
    expect(fromEnvironment({})).toEqual({ overReceiptTolerance: '0', tracing: 'true' });
  });

  it.each(['0', '2.5', '10', '999.99', '1000'])('accepts the tolerance %s', (value) => {
    expect(fromEnvironment({ RECEIPT_OVER_RECEIPT_TOLERANCE_PERCENT: value })).toMatchObject({ overReceiptTolerance: value });
  });

  it.each(['', '-1', '1000.01', '2.125', '5%', '05', ' 5', '1e2', 'NaN', 'Infinity'])('refuses the tolerance %j, naming the setting', (value) => {
    expect(() => fromEnvironment({ RECEIPT_OVER_RECEIPT_TOLERANCE_PERCENT: value })).toThrow(
      /^overReceiptTolerancePercent \(RECEIPT_OVER_RECEIPT_TOLERANCE_PERCENT\) must be a percentage/,
    );
  });

  it.each(['true', 'false'])('accepts tracing %s', (value) => {
    expect(fromEnvironment({ POWERTOOLS_TRACE_ENABLED: value })).toMatchObject({ tracing: value });
  });

  it.each(['', 'TRUE', 'yes', '0', ' true'])('refuses tracing %j, naming the setting', (value) => {
    expect(() => fromEnvironment({ POWERTOOLS_TRACE_ENABLED: value })).toThrow(/^tracing \(POWERTOOLS_TRACE_ENABLED\) must be true or false/);
  });

  it('gives a function only the settings its entry names', () => {
    const values = { overReceiptTolerance: '2.5', tracing: 'true' } as const;
    expect(settingsEnvironment(['overReceiptTolerance'], values)).toEqual({ [stackSettings.overReceiptTolerance.variable]: '2.5' });
    expect(settingsEnvironment(undefined, values)).toEqual({});
    expect(settingsEnvironment([], values)).toEqual({});
  });
});
