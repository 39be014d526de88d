import { TEST_DATABASE_URL } from './db.js';
import { embeddedTemplate, serverTemplate } from './template.js';

/** Makes the migrated template once, before any test file asks for a fresh database. */
export default async function setup(): Promise<void> {
  if (TEST_DATABASE_URL) await serverTemplate(TEST_DATABASE_URL);
  else await embeddedTemplate();
}
