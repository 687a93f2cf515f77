import { resolve } from 'node:path';
import { defineConfig, externalizeDepsPlugin } from 'electron-vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin()],
    build: {
      outDir: 'out/main',
      // The catalogue index is built in a worker thread (src-main/search/catalogue-index/spawn.ts finds it beside index.js),
      // and HEIF pictures are decoded in another (src-main/library/media/heif.ts finds it there too).
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src-main/index.ts'),
          'catalogue-worker': resolve(__dirname, 'src-main/search/catalogue-index/build-worker.ts'),
          'heif-worker': resolve(__dirname, 'src-main/library/media/heif-worker.ts'),
          'pixel-worker': resolve(__dirname, 'src-main/library/media/pixel-worker.ts'),
          // The similar groups are computed in another (src-main/library/similarity/background.ts).
          'groups-worker': resolve(__dirname, 'src-main/library/similarity/groups-worker.ts'),
          // And the catalogue's quick_check, for the system panel (src-main/library/integrity.ts).
          'integrity-worker': resolve(__dirname, 'src-main/library/integrity-worker.ts'),
          // The process that starts ffmpeg, ffprobe and perl for the app (src-main/core/tool-runner.ts).
          'tool-runner': resolve(__dirname, 'src-main/core/tool-runner-child.mjs'),
        },
      },
    },
  },
  preload: {
    plugins: [externalizeDepsPlugin()],
    build: {
      outDir: 'out/preload',
      // A sandboxed preload must be a CommonJS script.
      rollupOptions: {
        input: { index: resolve(__dirname, 'src-preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src-renderer'),
    plugins: [react()],
    build: {
      outDir: 'out/renderer',
      minify: true,
      rollupOptions: { input: { index: resolve(__dirname, 'src-renderer/index.html') } },
    },
  },
});
