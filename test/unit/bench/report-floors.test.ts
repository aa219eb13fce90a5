// Unit: what section 1's report says of the floors (test/bench/report.ts `floorLines`): each floor's ratio, its wait
// beside its function's, and the function's ratio less the floor's, in baseline cold starts and milliseconds.
import { floorLines } from '#test/bench/report';
import type { ColdFigures, ColdSection } from '#test/bench/section-cold';

const figures = (name: string, ratio: number, medianWaitMs: number, floorOf?: string): ColdFigures =>
  ({ name, kind: floorOf === undefined ? 'operation' : 'reference', module: floorOf === undefined ? `functions/${name}.ts` : 'test/bench/reference-calls.ts', ratio, medianWaitMs, ...(floorOf === undefined ? {} : { floorOf }) }) as unknown as ColdFigures;

const section = (functions: readonly ColdFigures[]): ColdSection => ({ baseline: { medianMs: 80 }, functions }) as unknown as ColdSection;

describe("section 1's floors in the report", () => {
  it('prints nothing when no floor was measured', () => {
    expect(floorLines(section([figures('paymentPost', 1.43, 8)]))).toEqual([]);
  });

  it("gives each floor's ratio and wait, and what its function adds beyond the calls", () => {
    const lines = floorLines(section([figures('paymentPost', 1.43, 8), figures("floor: paymentPost's calls", 1.12, 9.3, 'paymentPost')]));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('test/bench/reference-calls.ts');
    expect(lines[0]).toContain('Information only');
    expect(lines[1]).toBe(
      "    floor: paymentPost's calls: 1.12x of the baseline (wait 9.3 ms against the function's 8.0); paymentPost 1.43x, so 0.31x (about 25 ms) beyond its calls",
    );
  });

  it("gives only the floor's own figures when its function was not measured", () => {
    const [, line] = floorLines(section([figures("floor: paymentPostRefund's calls", 1.2, 11.1, 'paymentPostRefund')]));
    expect(line).toBe("    floor: paymentPostRefund's calls: 1.20x of the baseline (wait 11.1 ms)");
  });
});
