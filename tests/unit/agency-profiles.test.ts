import { describe, expect, it } from 'vitest';
import { AGENCY_IDS, AGENCY_PROFILES, agencyProfile, checkAgainst, type CheckInput } from '../../src-main/metadata/agencies';
import { exportCsv } from '../../src-main/metadata/csv';

// The agency profiles as data: the nine ids, a dated source for each, CSV headers as the
// agencies document them, and a check that flags exactly what each profile's rules forbid.

/** A photo that passes every profile's stated rules (when categories are not required). */
const good = (over: Partial<CheckInput> = {}): CheckInput => ({
  fileName: 'Harbour2024.jpg',
  kind: 'image',
  width: 3000,
  height: 2400,
  sizeBytes: 2 * 1024 * 1024,
  title: 'Fishing boats in a quiet harbour at dawn',
  caption: 'Fishing boats moored in a quiet harbour at dawn',
  keywords: ['boat', 'harbour', 'dawn', 'fishing', 'sea', 'water', 'morning', 'calm'],
  categories: [],
  releases: [],
  editorial: false,
  ...over,
});

describe('agency profiles', () => {
  it('has exactly the nine agencies of issue 19, each with dated sources and an honest list of what was not found', () => {
    expect(AGENCY_IDS).toEqual(['adobe', 'shutterstock', 'getty', 'alamy', 'pond5', 'dreamstime', '123rf', 'depositphotos', 'freepik']);
    for (const p of AGENCY_PROFILES) {
      expect(p.name.length).toBeGreaterThan(2);
      expect(p.sources.length).toBeGreaterThan(0);
      for (const s of p.sources) {
        expect(s.url).toMatch(/^https?:\/\//);
        expect(s.checked).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      }
      // A profile without a CSV says so among what was not found.
      if (!p.csv) expect(p.notFound.join(' ')).toMatch(/CSV/);
    }
  });

  it('writes each documented CSV with its documented header', () => {
    const row = { filename: 'a.jpg', title: 'A title', description: 'A caption', keywords: ['x', 'y'], categories: ['1'] };
    expect(exportCsv([row], 'adobe').split('\r\n')[0]).toBe('Filename,Title,Keywords,Category,Releases');
    expect(exportCsv([row], 'shutterstock').split('\r\n')[0]).toBe('Filename,Description,Keywords,Categories,Editorial,Mature content,illustration');
    expect(AGENCY_PROFILES.filter((p) => p.csv).map((p) => p.id)).toEqual(['adobe', 'shutterstock']);
    expect(() => exportCsv([row], 'getty')).toThrow(/no metadata CSV/);
  });

  it('passes a photo that meets the stated rules', () => {
    for (const id of ['adobe', 'getty', 'alamy', 'dreamstime', 'depositphotos'] as const) {
      expect(checkAgainst(agencyProfile(id), good()), id).toEqual([]);
    }
    expect(checkAgainst(agencyProfile('shutterstock'), good({ categories: ['Nature'] }))).toEqual([]);
    expect(checkAgainst(agencyProfile('pond5'), good({ fileName: 'Harbour2024.jpg' }))).toEqual([]);
    expect(checkAgainst(agencyProfile('123rf'), good({ width: 3000, height: 2400 }))).toEqual([]);
    expect(checkAgainst(agencyProfile('freepik'), good())).toEqual([]);
  });

  it('flags what Adobe Stock forbids: commas and length in the title, 30-character names, 4 MP, more than 49 keywords, formats', () => {
    const adobe = agencyProfile('adobe');
    const problems = checkAgainst(adobe, good({
      title: 'Boats, nets and gulls in a harbour at dawn with a very long title that goes past seventy characters',
      fileName: 'a_very_long_file_name_for_adobe_stock.jpg',
      width: 1600, height: 1200,
      keywords: Array.from({ length: 52 }, (_, i) => `k${i}`),
    }));
    expect(problems).toHaveLength(5);
    expect(problems.join('\n')).toMatch(/title has 99 characters; Adobe Stock allows 70/);
    expect(problems.join('\n')).toMatch(/contains commas/);
    expect(problems.join('\n')).toMatch(/has 41 characters; Adobe Stock allows 30/);
    expect(problems.join('\n')).toMatch(/1600×1200 is 1\.92 MP; Adobe Stock needs at least 4 MP/);
    expect(problems.join('\n')).toMatch(/52 keywords, but Adobe Stock allows at most 49: remove 3/);
    expect(checkAgainst(adobe, good({ fileName: 'x.png' }))).toEqual([expect.stringMatching(/accepts JPG photos, not \.png/)]);
    expect(checkAgainst(adobe, good({ title: null, caption: null }))).toEqual([expect.stringMatching(/No title: Adobe Stock requires one/)]);
    // The caption stands in for a missing title, and is what is checked.
    expect(checkAgainst(adobe, good({ title: null, caption: 'Boats, at dawn' }))).toEqual([expect.stringMatching(/caption \(used as the title\)/)]);
  });

  it('names the keywords to take off a photo over the maximum: those past it in the photo’s order; a repeat of a kept word stays', async () => {
    const { checkIssues } = await import('../../src-main/metadata/agencies');
    const words = Array.from({ length: 48 }, (_, i) => `k${i}`);
    // 'Places|k3' sends "k3" again (adds nothing); 'Boats|dinghy' is the 49th word; the two after it go.
    const keywords = [...words, 'Places|k3', 'Boats|dinghy', 'gull', 'Sea|foam'];
    const issue = checkIssues(agencyProfile('adobe'), good({ keywords })).find((i) => i.field === 'keywords');
    expect(issue?.text).toMatch(/51 keywords, but Adobe Stock allows at most 49: remove 2/);
    expect(issue?.remove).toEqual(['gull', 'Sea|foam']);
  });

  it('flags what Shutterstock forbids: fewer than 7 keywords, no category, a long description, unknown categories', () => {
    const ss = agencyProfile('shutterstock');
    const problems = checkAgainst(ss, good({ keywords: ['boat', 'sea'], caption: 'x'.repeat(201), categories: [] }));
    expect(problems.join('\n')).toMatch(/2 keywords, but Shutterstock needs at least 7: add 5 more/);
    expect(problems.join('\n')).toMatch(/description has 201 characters; Shutterstock allows 200/);
    expect(problems.join('\n')).toMatch(/No category: Shutterstock needs 1 to 2/);
    expect(checkAgainst(ss, good({ categories: ['Boats'] }))).toEqual([expect.stringMatching(/“Boats” is not one of Shutterstock's categories/)]);
  });

  it('flags the other profiles’ stated rules', () => {
    expect(checkAgainst(agencyProfile('alamy'), good({ width: 2000, height: 1500 }))).toEqual([expect.stringMatching(/Opened, the picture is 8\.6 MB; Alamy needs over 17\.0 MB/)]);
    expect(checkAgainst(agencyProfile('pond5'), good({ fileName: 'harbour_dawn-1.jpg' }))).toEqual([expect.stringMatching(/special characters/)]);
    expect(checkAgainst(agencyProfile('pond5'), good({ width: 2000, height: 1100 }))).toEqual([expect.stringMatching(/short side is 1100 px; Pond5 needs at least 1201/)]);
    expect(checkAgainst(agencyProfile('pond5'), good({ keywords: ['a', 'b'] }))).toEqual([expect.stringMatching(/Pond5 needs at least 5/)]);
    expect(checkAgainst(agencyProfile('pond5'), good({ editorial: true }))).toEqual([expect.stringMatching(/Editorial: Pond5 wants the caption as CITY, COUNTRY/)]);
    expect(checkAgainst(agencyProfile('pond5'), good({ editorial: true, title: 'PRAGUE, CZECH REPUBLIC – 05/11/2017: Runners at the half marathon' }))).toEqual([]);
    expect(checkAgainst(agencyProfile('dreamstime'), good({ width: 1800, height: 1500 }))).toEqual([expect.stringMatching(/Dreamstime needs at least 3 MP/)]);
    expect(checkAgainst(agencyProfile('123rf'), good({ width: 2400, height: 2400 }))).toEqual([expect.stringMatching(/123RF needs at least 6 MP/)]);
    expect(checkAgainst(agencyProfile('depositphotos'), good({ sizeBytes: 60 * 1024 * 1024 }))).toEqual([expect.stringMatching(/Depositphotos accepts at most 50\.0 MB/)]);
    expect(checkAgainst(agencyProfile('freepik'), good({ width: 1900, sizeBytes: 100_000 })).join('\n')).toMatch(/short side is 1900 px[\s\S]*needs over 0\.5 MB/);
    expect(checkAgainst(agencyProfile('getty'), good({ fileName: 'x.tif' }))).toEqual([expect.stringMatching(/Getty Images \/ iStock accepts JPG photos/)]);
  });
});

describe('checkIssues: where each problem is fixed', () => {
  it('names the field and offers the title without its commas', async () => {
    const { checkIssues } = await import('../../src-main/metadata/agencies');
    const issues = checkIssues(agencyProfile('adobe'), {
      fileName: 'harbour.jpg', kind: 'image', width: 4000, height: 3000, sizeBytes: 5_000_000,
      title: 'Nets, ropes and boats , in the harbour', caption: null, keywords: ['harbour', 'boat'], categories: [], releases: [], editorial: false,
    });
    const title = issues.find((i) => i.field === 'title')!;
    expect(title.text).toContain('contains commas');
    expect(title.fixed).toBe('Nets ropes and boats in the harbour');
    expect(title.fixLabel).toBe('Remove commas');
    expect(issues.every((i) => ['title', 'caption', 'keywords', 'category', 'file'].includes(i.field))).toBe(true);
    // The strings the CLI prints are the same words.
    expect(checkAgainst(agencyProfile('adobe'), {
      fileName: 'harbour.jpg', kind: 'image', width: 4000, height: 3000, sizeBytes: 5_000_000,
      title: 'Nets, ropes and boats , in the harbour', caption: null, keywords: ['harbour', 'boat'], categories: [], releases: [], editorial: false,
    })).toEqual(issues.map((i) => i.text));
  });
});
