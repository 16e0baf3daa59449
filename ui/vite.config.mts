import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

// The server serves ui/dist; the e2e harness and the single executable read it from there.
export default defineConfig({
  root,
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // Hashed file names let the server answer them with a year-long immutable cache.
    assetsDir: 'assets',
    chunkSizeWarningLimit: 600,
    rolldownOptions: {
      // A loaded shared machine makes plugin timings noisy; they say nothing about the app.
      checks: { pluginTimings: false },
      // The "use client" directives of React libraries mean nothing in a client-only bundle.
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  server: {
    // `npm run dev:ui` against a local `npm start` on :8080.
    proxy: Object.fromEntries(
      ['/api', '/auth', '/evaluate', '/meta', '/internal', '/health', '/dashboard'].map((p) => [
        p,
        'http://127.0.0.1:8080',
      ]),
    ),
  },
});
