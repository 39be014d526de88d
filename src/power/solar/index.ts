import type { AppContext, Feature } from '../../context.js';
import { solarRoutes } from './routes.js';
import { SolarService } from './service.js';

/** Hourly solar panel readings: imported from CSV by `import-solar`, read by day. */
export function createSolarFeature(ctx: AppContext): Feature {
  const solar = new SolarService({ db: ctx.database.db, clock: ctx.clock });
  return {
    name: 'solar',
    routes: (app) => solarRoutes(app, { solar, shutdown: ctx.shutdown }),
  };
}
