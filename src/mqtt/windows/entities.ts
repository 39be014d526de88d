import type { Entity } from '../entities.js';

/**
 * The cheapest and the greenest window as Home Assistant entities: two numbers it sets (the
 * window's length, the Danish hour it must end by), the window found (start, end, its mean) and
 * whether now lies in it.
 */
export type WindowKind = 'cheapest' | 'greenest';
export const WINDOW_KINDS: WindowKind[] = ['cheapest', 'greenest'];

export interface WindowSetting {
  minutes: number;
  endHour: number;
}

/** A car charged by 07:00 the morning after: the usual wish, and the cheapest 3 hours as before. */
export const DEFAULT_WINDOW: WindowSetting = { minutes: 180, endHour: 7 };

export interface WindowEntities {
  minutes: Entity;
  endHour: Entity;
  start: Entity;
  end: Entity;
  average: Entity;
  now: Entity;
}

const entities = (kind: WindowKind, label: string, now: Entity, average: Entity): WindowEntities => ({
  minutes: {
    id: `satwatt_${kind}_window_minutes`,
    component: 'number',
    name: `${label} window length`,
    unit: 'min',
    deviceClass: 'duration',
    icon: 'mdi:timer-outline',
    number: { min: 15, max: 720, step: 15 },
  },
  endHour: {
    id: `satwatt_${kind}_window_end_hour`,
    component: 'number',
    name: `${label} window ends by hour`,
    icon: 'mdi:clock-end',
    number: { min: 0, max: 23, step: 1 },
  },
  start: {
    id: `satwatt_${kind}_window_start`,
    component: 'sensor',
    name: `${label} window start`,
    deviceClass: 'timestamp',
    icon: 'mdi:clock-start',
  },
  end: {
    id: `satwatt_${kind}_window_end`,
    component: 'sensor',
    name: `${label} window end`,
    deviceClass: 'timestamp',
    icon: 'mdi:clock-end',
  },
  average,
  now,
});

export const WINDOW_ENTITIES: Record<WindowKind, WindowEntities> = {
  cheapest: entities(
    'cheapest',
    'Cheapest',
    { id: 'satwatt_cheap_now', component: 'binary_sensor', name: 'Cheap now', icon: 'mdi:cash-check' },
    {
      id: 'satwatt_cheapest_window_price',
      component: 'sensor',
      name: 'Cheapest window price',
      unit: 'DKK/kWh',
      stateClass: 'measurement',
      precision: 2,
      icon: 'mdi:cash-clock',
    },
  ),
  greenest: entities(
    'greenest',
    'Greenest',
    { id: 'satwatt_green_now', component: 'binary_sensor', name: 'Green now', icon: 'mdi:leaf' },
    {
      id: 'satwatt_greenest_window_co2',
      component: 'sensor',
      name: 'Greenest window CO₂',
      unit: 'g/kWh',
      stateClass: 'measurement',
      precision: 0,
      icon: 'mdi:molecule-co2',
    },
  ),
};

/** The grid's CO₂ intensity now, with the day's intervals in its attributes. */
export const CO2: Entity = {
  id: 'satwatt_co2',
  component: 'sensor',
  name: 'CO₂ intensity',
  unit: 'g/kWh',
  stateClass: 'measurement',
  precision: 0,
  icon: 'mdi:molecule-co2',
  attributes: true,
};

export const ALL_WINDOW_ENTITIES: Entity[] = [
  ...WINDOW_KINDS.flatMap((k): Entity[] => {
    const e = WINDOW_ENTITIES[k];
    return [e.minutes, e.endHour, e.start, e.end, e.average, e.now];
  }),
  CO2,
];
