// Unit: business metrics are EMF lines with the one namespace, the `service` dimension and at most one low-cardinality
// dimension of their own; the webhook's answers map to a closed list of reasons; tracing is on only with a daemon.
import { jest } from '@jest/globals';
import { businessMetrics, countMetric, metricsNamespace, type BusinessMetric } from '#shared/observability/metrics';
import { webhookRefusalReason } from '#shared/document-events/webhook-metrics';
import { tracingEnabled } from '#shared/observability/tracing';

const emitted = (act: () => void): Record<string, any>[] => {
  const lines: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    act();
  } finally {
    write.mockRestore();
  }
  return lines.flatMap((chunk) => chunk.split('\n')).filter((line) => line.trim() !== '').map((line) => JSON.parse(line));
};

describe('business metrics (EMF)', () => {
  it('writes one EMF line per event, in the namespace, with the service dimension and the metric\'s own', () => {
    const [line, ...rest] = emitted(() => countMetric('refunds', 'Queued'));
    expect(rest).toEqual([]);
    expect(line).toMatchObject({
      _aws: { CloudWatchMetrics: [{ Namespace: metricsNamespace, Dimensions: [['service', 'Mode']], Metrics: [{ Name: 'Refunds', Unit: 'Count' }] }] },
      service: 'business-platform-api',
      Mode: 'Queued',
      Refunds: 1,
    });
    expect(typeof line!._aws.Timestamp).toBe('number');
  });

  it('carries an amount as the value, never as a dimension', () => {
    const [line] = emitted(() => countMetric('refundedAmount', 'JPY', 1500));
    expect(line!._aws.CloudWatchMetrics[0].Dimensions).toEqual([['service', 'Currency']]);
    expect(line).toMatchObject({ Currency: 'JPY', RefundedAmountMinor: 1500 });
  });

  it('counts a metric without a dimension of its own under the service dimension only', () => {
    const lines = emitted(() => {
      countMetric('paymentsRecorded');
      countMetric('linesReceived', 3);
    });
    expect(lines.map((line) => line._aws.CloudWatchMetrics[0].Dimensions)).toEqual([[['service']], [['service']]]);
    expect(lines[0]).toMatchObject({ PaymentsRecorded: 1 });
    expect(lines[1]).toMatchObject({ ReceiptLinesReceived: 3 });
  });

  it('declares unique names, and closed dimension lists (currencies excepted: money/ accepts only ISO 4217 codes)', () => {
    const definitions = Object.values(businessMetrics);
    expect(new Set(definitions.map((definition) => definition.name)).size).toBe(definitions.length);
    for (const [key, definition] of Object.entries(businessMetrics) as [BusinessMetric, (typeof businessMetrics)[BusinessMetric]][]) {
      if (!('dimension' in definition)) continue;
      if (key === 'refundedAmount') expect(definition.dimension.values).toEqual([]);
      else expect(definition.dimension.values.length).toBeGreaterThan(0);
      expect(['TenantID', 'TenantId', 'tenantId', 'Amount']).not.toContain(definition.dimension.name);
    }
  });
});

describe('webhook answers', () => {
  it.each([
    [202, undefined],
    [400, 'Invalid'],
    [401, 'Signature'],
    [406, 'MediaType'],
    [413, 'TooLarge'],
    [415, 'MediaType'],
    [503, 'Unavailable'],
    [500, 'Other'],
    [429, 'Other'],
  ])('status %i -> %s', (status, reason) => {
    expect(webhookRefusalReason(status)).toBe(reason);
  });
});

describe('tracing', () => {
  it('is on only where an X-Ray daemon is, and never when POWERTOOLS_TRACE_ENABLED is false', () => {
    expect(tracingEnabled({})).toBe(false);
    expect(tracingEnabled({ AWS_XRAY_DAEMON_ADDRESS: '169.254.79.129:2000' })).toBe(true);
    expect(tracingEnabled({ AWS_XRAY_DAEMON_ADDRESS: '169.254.79.129:2000', POWERTOOLS_TRACE_ENABLED: 'false' })).toBe(false);
    expect(tracingEnabled({ AWS_XRAY_DAEMON_ADDRESS: '169.254.79.129:2000', POWERTOOLS_TRACE_ENABLED: 'FALSE' })).toBe(false);
    expect(tracingEnabled({ POWERTOOLS_TRACE_ENABLED: 'true' })).toBe(false);
  });
});
