import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import express, { type Express, type Request, type Response } from 'express';
import type { ExpressMount } from '../express-app';

/** Walks up from this file to the folder holding package.json and ui/, from src/ or dist/src/. */
function projectRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'ui'))) return dir;
    const up = dirname(dir);
    if (up === dir) return start;
    dir = up;
  }
}

/**
 * Where `npm run build` puts the dashboard's static files. The one place that knows it:
 * anything that serves or packages the dashboard takes the folder from here.
 */
export const DASHBOARD_DIST_DIR: string = join(projectRoot(__dirname), 'ui', 'dist');

/** Prefixes of the API surface: an unknown path under them stays a JSON 404, never the app. */
const API_PREFIXES = [
  '/api/',
  '/auth/',
  '/evaluate/',
  '/internal/',
  '/meta/',
  '/dashboard/',
  '/ofrep/',
  '/debug/',
  '/health',
  '/metrics',
];

const isApiPath = (path: string): boolean =>
  API_PREFIXES.some((p) => path === p.replace(/\/$/, '') || path.startsWith(p));

const YEAR_SECONDS = 365 * 24 * 3600;

export interface DashboardFilesOptions {
  /** The built dashboard (index.html, assets/): DASHBOARD_DIST_DIR unless packaged elsewhere. */
  readonly dir: string;
}

/**
 * Serves the dashboard: hashed files under /assets/ with a year-long immutable cache,
 * everything else revalidated on each load, and index.html for any other GET that asks for
 * HTML (client-side routes such as /namespaces/default/flags). Compression is the app's.
 * A request under an API prefix is never answered with the app.
 */
export function dashboardFiles(options: DashboardFilesOptions): ExpressMount {
  return (app: Express, tools) => {
    const files = express.static(options.dir, {
      index: false,
      redirect: false,
      fallthrough: true,
      setHeaders: (res, path) => {
        res.setHeader(
          'Cache-Control',
          path.includes(`${join(options.dir, 'assets')}`)
            ? `public, max-age=${YEAR_SECONDS}, immutable`
            : 'no-cache',
        );
      },
    });
    const name = tools.route('/ (dashboard)');
    app.use((req: Request, res: Response, next) => {
      if ((req.method !== 'GET' && req.method !== 'HEAD') || isApiPath(req.path)) {
        next();
        return;
      }
      name(req, res, () => {
        files(req, res, () => {
          if (!(req.accepts(['html', 'json']) === 'html') || req.path.startsWith('/assets/')) {
            next();
            return;
          }
          res.setHeader('Cache-Control', 'no-cache');
          // Relative to `root`: send refuses a path with a dot-directory in it (a cache
          // directory such as ~/.cache, where the single executable extracts the dashboard).
          res.sendFile('index.html', { root: options.dir }, (err) => {
            if (err) next(err);
          });
        });
      });
    });
  };
}

/** True when the dashboard has been built into `dir`. */
export const dashboardBuilt = (dir: string): boolean => existsSync(join(dir, 'index.html'));
