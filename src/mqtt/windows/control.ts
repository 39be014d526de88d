import type { Logger } from 'pino';
import type { Db } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { commandTopic, type Entity, type Naming } from '../entities.js';
import {
  DEFAULT_WINDOW,
  WINDOW_ENTITIES,
  WINDOW_KINDS,
  type WindowKind,
  type WindowSetting,
} from './entities.js';
import * as repo from './repository.js';

export type WindowSettings = Record<WindowKind, WindowSetting>;

/** The number's value from a command payload (`180` or `180.0`), or why it is not one. */
export function numberOf(e: Entity, payload: string): number | string {
  const { min, max, step } = e.number!;
  const v = payload.trim() === '' ? NaN : Number(payload);
  if (!Number.isFinite(v)) return `${JSON.stringify(payload.slice(0, 40))} is not a number`;
  if (v < min || v > max || (v - min) % step !== 0) return `${v} is not ${min} to ${max} in steps of ${step}`;
  return v;
}

/**
 * The windows' settings as Home Assistant sets them through the numbers' command topics, stored
 * in the database: they survive a restart, a broker that lost its retained messages, and another
 * process taking over the publisher. A command that is no valid number is logged and changes nothing.
 */
export class WindowControl {
  private last: WindowSettings = { cheapest: DEFAULT_WINDOW, greenest: DEFAULT_WINDOW };
  private readonly commands = new Map<string, { kind: WindowKind; field: keyof WindowSetting }>();

  constructor(private readonly deps: { db: Db; clock: Clock; log: Logger; naming: Naming }) {
    for (const kind of WINDOW_KINDS) {
      const e = WINDOW_ENTITIES[kind];
      this.commands.set(commandTopic(deps.naming, e.minutes), { kind, field: 'minutes' });
      this.commands.set(commandTopic(deps.naming, e.endHour), { kind, field: 'endHour' });
    }
  }

  /** The command topics to subscribe to. */
  topics(): string[] {
    return [...this.commands.keys()];
  }

  /** The settings stored (the defaults for a kind never set); the last ones read while the database is away. */
  async settings(): Promise<WindowSettings> {
    try {
      const next = { ...this.last };
      for (const kind of WINDOW_KINDS) next[kind] = DEFAULT_WINDOW;
      for (const s of await repo.windowSettings(this.deps.db))
        if (s.kind === 'cheapest' || s.kind === 'greenest')
          next[s.kind] = { minutes: s.minutes, endHour: s.end_hour };
      this.last = next;
    } catch (e) {
      this.deps.log.warn({ err: (e as Error).message }, 'mqtt: the window settings could not be read');
    }
    return this.last;
  }

  /**
   * A command for one of the numbers: true when it is one and its value was stored. A retained
   * command is not taken: an old one would undo a newer setting at every reconnect.
   */
  async command(topic: string, payload: string, retained: boolean): Promise<boolean> {
    const target = this.commands.get(topic);
    if (!target || retained) return false;
    const e = WINDOW_ENTITIES[target.kind][target.field];
    const value = numberOf(e, payload);
    if (typeof value === 'string') {
      this.deps.log.warn(`mqtt: ${e.id} not set: ${value}`);
      return false;
    }
    const current = (await this.settings())[target.kind];
    const next = { ...current, [target.field]: value };
    await repo.saveWindowSetting(
      this.deps.db,
      { kind: target.kind, minutes: next.minutes, end_hour: next.endHour },
      this.deps.clock.now(),
    );
    this.last = { ...this.last, [target.kind]: next };
    return true;
  }
}
