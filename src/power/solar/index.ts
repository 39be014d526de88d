import type { FeatureFactory } from '../../context.js';
import { solarRoutes } from './routes.js';

export const solarFeature: FeatureFactory = (ctx) => ({
  name: 'solar',
  routes: (app) => solarRoutes(app, ctx),
});
