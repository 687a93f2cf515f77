import { createTagsmith } from '../../api/tagsmith';
import { systemReport } from '../../api/system';
import { UsageError } from '../args';
import type { Command } from '../command';

export const command: Command = {
  name: 'doctor',
  usage: 'doctor',
  summary: 'Check the tools Tagsmith runs (ffmpeg, ffprobe, exiftool, perl), the catalogue and the service settings.',
  help: [],
  options: {},
  async run(ctx, { positionals, globals }, out) {
    if (positionals.length) throw new UsageError('doctor takes no arguments.', 'doctor');
    const service = createTagsmith(ctx, { startQueue: false, serviceUrl: globals.serviceUrl });
    try {
      const report = await systemReport(ctx, service);
      out.result(report, () => {
        const tools = report.tools.map((t) =>
          t.ok
            ? `  ok       ${t.name.padEnd(9)}${t.version ?? ''}  (${t.source}: ${t.path})`
            : `  MISSING  ${t.name.padEnd(9)}${t.path ? `(${t.source}: ${t.path} not found or does not run) ` : ''}${t.impact}`,
        );
        const l = report.library;
        return [
          'Tools:',
          ...tools,
          `Library: ${l.path}`,
          `  ${l.assets} assets, catalogue ${(l.sizeBytes / 1024 / 1024).toFixed(1)} MB, integrity ${l.integrity}`,
          `Service: ${report.service.url} (credentials: ${report.service.credentials})`,
        ].join('\n');
      });
      // The check itself ran: a missing tool is a finding, not a failure of the command.
      return 0;
    } finally {
      await service.dispose();
    }
  },
};
