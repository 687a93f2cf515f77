import { describe, expect, it } from 'vitest';
import { csvField, exportCsv } from '../../src-main/metadata/csv';

// Stock-agency CSVs: exact headers, RFC 4180 quoting, keywords in their order.

/** A small RFC 4180 parser, to prove the output reads back as the same cells. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') quoted = false; else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(cell); cell = ''; }
    else if (c === '\r' && text[i + 1] === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; i++; }
    else cell += c;
  }
  return rows;
}

describe('exportCsv', () => {
  it('writes Adobe Stock\u2019s header and one record per file, keywords comma-separated in order', () => {
    const csv = exportCsv([
      { filename: 'IMG_0001.jpg', title: 'Sunset over "Lake" Constance, Germany', keywords: ['sunset', 'lake', 'Bodensee', 'Places|Europe|Konstanz'], categories: [11], releases: ['Model A', 'Property B'] },
      { filename: 'clip.mov', title: 'Москва ночью', keywords: ['ночь', 'город'] },
    ], 'adobe');
    expect(csv.split('\r\n')[0]).toBe('Filename,Title,Keywords,Category,Releases');
    expect(parseCsv(csv)).toEqual([
      ['Filename', 'Title', 'Keywords', 'Category', 'Releases'],
      ['IMG_0001.jpg', 'Sunset over "Lake" Constance, Germany', 'sunset,lake,Bodensee,Konstanz', '11', 'Model A,Property B'],
      ['clip.mov', 'Москва ночью', 'ночь,город', '', ''],
    ]);
    expect(csv).toContain('"Sunset over ""Lake"" Constance, Germany"');
    expect(csv.endsWith('\r\n')).toBe(true);
  });

  it('writes Shutterstock\u2019s header with Yes/No flags, at most two categories, and the caption as Description', () => {
    const csv = exportCsv([
      { filename: 'a.jpg', title: 'Title', description: 'Zwei Zeilen\nmit „Anführungszeichen" und, Komma', keywords: ['Köln', 'Dom', 'köln'], categories: ['Buildings/Landmarks', 'Religion', 'Travel'], editorial: true },
      { filename: 'b.jpg', title: 'Only a title', keywords: [], illustration: true, mature: false },
    ], 'shutterstock');
    const rows = parseCsv(csv);
    expect(rows[0]).toEqual(['Filename', 'Description', 'Keywords', 'Categories', 'Editorial', 'Mature content', 'illustration']);
    expect(rows[1]).toEqual(['a.jpg', 'Zwei Zeilen\nmit „Anführungszeichen" und, Komma', 'Köln,Dom', 'Buildings/Landmarks,Religion', 'Yes', 'No', 'No']);
    expect(rows[2]).toEqual(['b.jpg', 'Only a title', '', '', 'No', 'No', 'Yes']);
  });

  it('quotes exactly the fields that need it', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    expect(csvField('cr\rx')).toBe('"cr\rx"');
  });

  it('keeps a keyword\u2019s own comma from splitting it into two', () => {
    const rows = parseCsv(exportCsv([{ filename: 'x.jpg', title: 't', keywords: ['Washington, D.C.', 'USA'] }], 'adobe'));
    expect(rows[1][2]).toBe('Washington D.C.,USA');
  });
});
