import type { Db } from '../../db/schema.js';

export interface StoredWindowSetting {
  kind: string;
  minutes: number;
  end_hour: number;
}

/** Every window setting stored. */
export async function windowSettings(db: Db): Promise<StoredWindowSetting[]> {
  return db
    .selectFrom('power.window_settings')
    .select(['kind', 'minutes', 'end_hour'])
    .orderBy('kind')
    .execute();
}

/** Stores one kind's setting, replacing the one before. */
export async function saveWindowSetting(db: Db, s: StoredWindowSetting, at: Date): Promise<void> {
  await db
    .insertInto('power.window_settings')
    .values({ ...s, updated_at: at })
    .onConflict((oc) =>
      oc.column('kind').doUpdateSet({ minutes: s.minutes, end_hour: s.end_hour, updated_at: at }),
    )
    .execute();
}
