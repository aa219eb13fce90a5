// Chaos tier: jest globalTeardown of the `chaos` project. Prints the table of this run's cells, flow x fault ->
// survived / doubled / lost / violated, computed from what each cell's invariant checker found, and the findings of
// every cell that did not survive. The same table is kept in test/README.md.
import { existsSync, rmSync } from 'node:fs';
import { readCells, renderAnswers, renderFindings, renderTable } from './support/cells';

export default async function globalTeardown(): Promise<void> {
  const dir = process.env.CHAOS_RESULTS_DIR;
  if (!dir || !existsSync(dir)) return;
  const cells = readCells(dir);
  if (cells.length > 0) {
    const findings = renderFindings(cells);
    process.stdout.write(
      `\nChaos tier: flow x fault (${cells.filter((cell) => cell.outcome === 'survived').length} of ${cells.length} cells survived)\n\n${renderTable(cells)}\n\n${renderAnswers(cells)}\n${findings ? `\nNot survived:\n${findings}\n` : ''}\n`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
}
