import type { AppContext, Feature } from '../../context.js';
import { solarRoutes } from './routes.js';

/** Hourly solar panel readings: imported from CSV by `import-solar`, read by day. */
export function createSolarFeature(ctx: AppContext): Feature {
  return {
    name: 'solar',
    routes: (app) => solarRoutes(app, { db: ctx.database.db, clock: ctx.clock, shutdown: ctx.shutdown }),
  };
}
