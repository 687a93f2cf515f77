import { writeFileSync } from 'node:fs';
import { machine, type AreaResult, type Figure } from './common';

// bench/report.md (for people) and bench/report.json (for tools) from one run's results.

const fmt = (n: number | null | undefined): string => (n === null || n === undefined || !Number.isFinite(n) ? '–' : String(n));

function row(f: Figure): string {
  const ref = f.reference ? `${fmt(f.reference.value)} ${f.reference.unit} (${f.reference.name})` : '–';
  const ratio = f.ratio === null || f.ratio === undefined ? '–' : `${fmt(f.ratio)}x${f.ratioNote ? ` ${f.ratioNote}` : ''}`;
  return `| ${f.name.replace(/\|/g, '\\|')} | ${fmt(f.value)} ${f.unit} | ${ref} | ${ratio} | ${f.target ?? '–'} | ${f.status} |`;
}

export function writeReports(results: AreaResult[], opts: { mdPath: string; jsonPath: string; command: string; startedAt: Date; tools: Record<string, string> }): void {
  const m = machine();
  const figures = results.flatMap((r) => r.figures);
  const pass = figures.filter((f) => f.status === 'PASS').length;
  const fail = figures.filter((f) => f.status === 'FAIL').length;
  const lines: string[] = [
    '# Tagsmith benchmark report',
    '',
    `Run ${opts.startedAt.toISOString()}, scale **${m.scale}**${m.scale === 'small' ? ' (BENCH_SCALE=small: datasets shrunk 10-100x; figures are for development, not for judging targets)' : ''}.`,
    '',
    `Machine: ${m.cpuModel}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}, ${m.platform}.`,
    `Reference tools: ${Object.entries(opts.tools).map(([k, v]) => `${k} ${v}`).join(', ')}.`,
    '',
    `Reproduce: \`${opts.command}\` (one area: \`npm run bench -- --only <area>\`; small: \`BENCH_SCALE=small npm run bench\`).`,
    '',
    `Targets: ${pass} PASS, ${fail} FAIL; ${figures.length - pass - fail} figures informational. Every reference was measured in this run on the same data.`,
    '',
  ];
  for (const r of results) {
    lines.push(`## ${r.area} (${Math.round(r.seconds)} s)`, '');
    lines.push('| figure | value | reference | ratio | target | status |', '|---|---|---|---|---|---|');
    for (const f of r.figures) lines.push(row(f));
    lines.push('');
    for (const n of r.notes) lines.push(`- ${n}`);
    lines.push('');
  }
  writeFileSync(opts.mdPath, lines.join('\n'));
  writeFileSync(
    opts.jsonPath,
    JSON.stringify({ startedAt: opts.startedAt.toISOString(), machine: m, command: opts.command, tools: opts.tools, summary: { pass, fail, figures: figures.length }, areas: results }, null, 2) + '\n',
  );
}
