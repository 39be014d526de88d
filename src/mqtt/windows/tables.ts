/** What Home Assistant set for a window (migration power/0230). */
export interface WindowSettingsTable {
  kind: string;
  minutes: number;
  end_hour: number;
  updated_at: Date;
}

export interface WindowSettingsTables {
  'power.window_settings': WindowSettingsTable;
}
