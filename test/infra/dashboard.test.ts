// Infra tests: one CloudWatch dashboard shows every alarm, every business metric the functions write (EMF), and the
// operational metrics beside them (API, function errors, queue backlogs, dead-letter queues).
import { consumedQueueDefinitions, queueDefinitions } from '#shared/events/queues';
import { businessMetrics } from '#shared/observability/metrics';
import { logicalIdOf, resourcesOfType, synthesize, type Synthesized } from './synthesize';

interface Widget {
  readonly type: string;
  readonly properties: { readonly title?: string; readonly metrics?: unknown[][]; readonly alarms?: string[] };
}

let synthesized: Synthesized;
let widgets: Widget[];

/**
 * The dashboard body is an Fn::Join of JSON text and tokens; each token sits inside a JSON string, so writing it as
 * `<{"Ref":"X"}>` without double quotes gives JSON that parses, with the references still readable.
 */
const parseBody = (body: unknown): { widgets: Widget[] } => {
  const parts = (body as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
  const text = parts.map((part) => (typeof part === 'string' ? part : `<${JSON.stringify(part).replaceAll('"', "'")}>`)).join('');
  return JSON.parse(text) as { widgets: Widget[] };
};

const metricLines = (): unknown[][] => widgets.flatMap((widget) => widget.properties.metrics ?? []);

beforeAll(() => {
  synthesized = synthesize();
  const dashboards = resourcesOfType(synthesized.apiJson, 'AWS::CloudWatch::Dashboard');
  expect(dashboards).toHaveLength(1);
  widgets = parseBody(dashboards[0]![1].Properties!.DashboardBody).widgets;
});
afterAll(() => synthesized.cleanUp());

describe('dashboard', () => {
  it('graphs every business metric of the service namespace, each value of its dimension as a line of its own', () => {
    const lines = metricLines().filter((line) => line[0] === 'BusinessPlatformApi');
    for (const metric of Object.values(businessMetrics)) {
      const ofMetric = lines.filter((line) => line[1] === metric.name);
      if (!('dimension' in metric)) {
        expect(ofMetric).toEqual([[ 'BusinessPlatformApi', metric.name, 'service', 'business-platform-api', expect.any(Object)]]);
        continue;
      }
      if (metric.dimension.values.length === 0) continue;
      const values = ofMetric.map((line) => line.slice(2, 6));
      expect(values).toEqual(metric.dimension.values.map((value) => [metric.dimension.name, value, 'service', 'business-platform-api']));
    }
  });

  it('graphs the refunded amount of every currency written, by search', () => {
    const expressions = metricLines().flatMap((line) => line.map((item) => (item as { expression?: string }).expression).filter(Boolean));
    expect(expressions).toContain(
      `SEARCH('{BusinessPlatformApi,service,Currency} MetricName="${businessMetrics.refundedAmount.name}" service="business-platform-api"', 'Sum', 300)`,
    );
  });

  it('shows the state of every alarm', () => {
    const shown = widgets.flatMap((widget) => widget.properties.alarms ?? []);
    const alarmIds = resourcesOfType(synthesized.apiJson, 'AWS::CloudWatch::Alarm').map(([id]) => id);
    expect(shown.map((reference) => /'Fn::GetAtt':\['([^']+)','Arn'\]/.exec(reference)?.[1]).sort()).toEqual([...alarmIds].sort());
  });

  it('graphs the API, every function\'s errors, every queue\'s backlog and age, and every dead-letter queue\'s depth', () => {
    const lines = metricLines();
    const functionIds = [
      ...[...synthesized.apiStack.operationFunctions.values()].map((operationFunction) => logicalIdOf(operationFunction.function)),
      ...consumedQueueDefinitions.map((definition) => logicalIdOf(synthesized.apiStack.consumer(definition.consumer.name).function)),
    ];
    const errors = lines.filter((line) => line[0] === 'AWS/Lambda' && line[1] === 'Errors').map((line) => line[3]);
    expect(errors).toEqual(functionIds.map((id) => `<{'Ref':'${id}'}>`));
    expect(lines.filter((line) => line[0] === 'AWS/ApiGateway').map((line) => line[1])).toEqual(['Count', '4XXError', '5XXError', 'Latency']);
    const labels = (metricName: string) =>
      lines.filter((line) => line[0] === 'AWS/SQS' && line[1] === metricName).map((line) => (line[4] as { label: string }).label);
    expect(labels('ApproximateAgeOfOldestMessage')).toEqual(queueDefinitions.map((definition) => `${definition.name} oldest (s)`));
    expect(labels('ApproximateNumberOfMessagesVisible')).toEqual([
      ...queueDefinitions.map((definition) => definition.name),
      ...queueDefinitions.map((definition) => `${definition.name} DLQ`),
    ]);
  });
});
