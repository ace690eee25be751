import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FLOORS, measureFloors } from '../../scripts/floors.js';

const root = new URL('../..', import.meta.url);
const srcDir = new URL('src/', root).pathname;

/** The rows of the floor table in docs/architecture.md: floor, folder and what it may import. */
function documentedFloors(): { floor: number; folder: string; may: string[] }[] {
  const doc = readFileSync(new URL('docs/architecture.md', root), 'utf8');
  return doc.split('\n').flatMap((line) => {
    const cells = line.split('|').map((c) => c.trim());
    const floor = Number(cells[1]);
    if (cells.length < 6 || cells[1] === '' || !Number.isInteger(floor)) return [];
    const folder = (cells[2] ?? '').replace(/`/g, '').replace(/\/$/, '').replace(/\.ts$/, '');
    const mayCell = cells[4] ?? '';
    const may =
      mayCell === 'any folder below'
        ? ['*']
        : [...mayCell.matchAll(/`([a-z]+)\/`/g)].map((m) => m[1] ?? '');
    return [{ floor, folder, may }];
  });
}

describe('the floors of src/', () => {
  it('hold: no import circle, no two folders importing each other, no import against the table', () => {
    const report = measureFloors(srcDir);
    expect(report.files).toBeGreaterThan(100);
    expect(report.circles).toEqual([]);
    expect(report.mutualFolders).toEqual([]);
    expect(report.breaches).toEqual([]);
  });

  it('give every folder of src/ a floor', () => {
    const folders = readdirSync(srcDir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    const known = FLOORS.map((f) => f.folder);
    expect(folders.filter((f) => !known.includes(f))).toEqual([]);
  });

  it('are the ones docs/architecture.md shows', () => {
    expect(documentedFloors()).toEqual(
      FLOORS.map(({ floor, folder, may }) => ({ floor, folder, may: [...may] })),
    );
  });
});
