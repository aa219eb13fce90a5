// Unit: `npm run bench`'s command line (test/bench/arguments.ts). An option the bench does not know is refused, not
// ignored: `npm run bench -- --bogus` used to start the full run (half an hour and more).
import { parseBenchArguments } from '#test/bench/arguments';

const sections = ['payments'];

describe('npm run bench arguments', () => {
  it('runs the full bench with none, and reads every option the usage lists', () => {
    expect(parseBenchArguments([], sections)).toEqual({ kind: 'run', arguments: { quick: false, cpuProfile: false, coldOnly: false } });
    expect(parseBenchArguments(['--quick', '--cold-only', '--cpu-prof', '--functions', 'paymentPost,scheduledTaskSave'], sections)).toEqual({
      kind: 'run',
      arguments: { quick: true, cpuProfile: true, coldOnly: true, functions: ['paymentPost', 'scheduledTaskSave'] },
    });
    expect(parseBenchArguments(['--only', 'payments', '--quick'], sections)).toEqual({
      kind: 'run',
      arguments: { quick: true, cpuProfile: false, coldOnly: false, only: 'payments' },
    });
  });

  it('answers --help and -h with the usage', () => {
    expect(parseBenchArguments(['--help'], sections)).toEqual({ kind: 'help' });
    expect(parseBenchArguments(['--quick', '-h'], sections)).toEqual({ kind: 'help' });
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['--cold_only'], /Unknown option '--cold_only'/],
    [['quick'], /Unexpected argument 'quick'/],
    [['--only', 'receipts'], /^--only takes one of payments; got "receipts"$/],
    [['--only'], /argument missing/],
    [['--cold-only', '--only', 'payments'], /^--cold-only and --only exclude each other$/],
    [['--functions', ','], /^--functions takes one or more function names/],
  ])('refuses %j', (argv, reason) => {
    const parsed = parseBenchArguments(argv, sections);
    expect(parsed.kind).toBe('refused');
    expect(parsed.kind === 'refused' ? parsed.reason : '').toMatch(reason);
  });
});
