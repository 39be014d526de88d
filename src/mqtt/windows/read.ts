import type { Co2Service } from '../../power/co2/service.js';
import type { CheapestWindow } from '../../power/windows/schemas.js';
import type { WindowService } from '../../power/windows/service.js';
import type { Clock } from '../../shared/clock.js';
import { addDays, danishDate, toDanishIso } from '../../shared/danish-time.js';
import { co2Day, dayAttributes } from '../attributes.js';
import type { Update } from '../publisher.js';
import { UNKNOWN, text } from '../states.js';
import { CO2, WINDOW_ENTITIES, WINDOW_KINDS, type WindowKind } from './entities.js';
import type { WindowSettings } from './control.js';
import { WindowTracker, inside, type Found } from './tracker.js';

export interface WindowSources {
  windows: Pick<WindowService, 'cheapest' | 'greenest'>;
  co2: Pick<Co2Service, 'day'>;
}

type Read = <T>(what: string, fn: () => Promise<T>) => Promise<T | null>;

const iso = (t: number) => new Date(t).toISOString();

/**
 * The windows Home Assistant asked for, found by the service that answers /api/cheapest and
 * /api/greenest, and the CO₂ intensity now with its day's intervals.
 */
export class WindowReader {
  private readonly trackers: Record<WindowKind, WindowTracker> = {
    cheapest: new WindowTracker(),
    greenest: new WindowTracker(),
  };

  constructor(
    private readonly sources: WindowSources,
    private readonly deps: { clock: Clock; area: 'DK1' | 'DK2'; read: Read; chargesKnown: () => boolean },
  ) {}

  async windows(settings: WindowSettings): Promise<Update[]> {
    const now = this.deps.clock.now().getTime();
    const out: Update[] = [];
    for (const kind of WINDOW_KINDS) {
      const setting = settings[kind];
      const e = WINDOW_ENTITIES[kind];
      const search = (after: number, before: number) => this.search(kind, setting.minutes, after, before);
      // Ranked on spot alone while the household's charges load, it would be a window of other prices.
      const w =
        kind === 'cheapest' && !this.deps.chargesKnown()
          ? null
          : await this.trackers[kind].next(now, setting, search);
      out.push(
        { entity: e.minutes, state: String(setting.minutes) },
        { entity: e.endHour, state: String(setting.endHour) },
        { entity: e.start, state: w ? toDanishIso(new Date(w.start)) : UNKNOWN },
        { entity: e.end, state: w ? toDanishIso(new Date(w.end)) : UNKNOWN },
        { entity: e.average, state: text(w?.average) },
        { entity: e.now, state: inside(w, now) ? 'ON' : 'OFF' },
      );
    }
    return out;
  }

  async co2(): Promise<Update[]> {
    const now = this.deps.clock.now();
    const today = danishDate(now);
    const day = (d: string) =>
      this.deps.read('CO₂ values', () => this.sources.co2.day(d, this.deps.area, 'quarter'));
    const [t, tomorrow] = [await day(today), await day(addDays(today, 1))];
    const item = t?.items.find((i) => {
      const s = Date.parse(i.time_dk);
      return s <= now.getTime() && now.getTime() < s + 900_000;
    });
    return [
      { entity: CO2, state: text(item?.g_kwh), attributes: dayAttributes(co2Day(t), co2Day(tomorrow), 2) },
    ];
  }

  private async search(
    kind: WindowKind,
    minutes: number,
    after: number,
    before: number,
  ): Promise<Found | null> {
    const q = { minutes, after: iso(after), before: iso(before), area: this.deps.area };
    const { windows } = this.sources;
    const w =
      kind === 'cheapest'
        ? await this.deps.read('cheapest window', async () => {
            const c = JSON.parse((await windows.cheapest(q)).toString()) as CheapestWindow;
            return { start: c.start_dk, end: c.end_dk, average: c.average_dkk_kwh };
          })
        : await this.deps.read('greenest window', async () => {
            const g = await windows.greenest(q);
            return { start: g.start_dk, end: g.end_dk, average: g.average_g_kwh };
          });
    return w && { start: Date.parse(w.start), end: Date.parse(w.end), average: w.average };
  }
}
