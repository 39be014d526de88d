import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { danishHour, toDanishIso } from '../../src/shared/danish-time.js';

export const SOLAR_HEADER =
  'timestamp,energy_kwh,power_w,voltage_v,current_a,frequency_hz,temperature_c,total_yield_kwh';

/**
 * Plausible hourly readings of a 6 kW system: a bell curve over the Danish day, zeros while the
 * inverter sleeps at night, and a lifetime counter that grows with the energy.
 */
export function* solarLines(firstHour: Date, count: number, startYieldKwh = 12_345): Generator<string> {
  let yieldTenths = Math.round(startYieldKwh * 10);
  for (let i = 0; i < count; i++) {
    const at = new Date(firstHour.getTime() + i * 3600_000);
    const hour = danishHour(at);
    const sun = Math.max(0, Math.sin(((hour - 5) / 16) * Math.PI));
    const energyWh = Math.round(sun * 5200 * (0.8 + ((i * 7919) % 100) / 500));
    yieldTenths += Math.round(energyWh / 100);
    const awake = energyWh > 0;
    const power = energyWh; // Wh in one hour = mean W
    const voltage = awake ? 229 + ((i * 31) % 40) / 10 : 0;
    const current = awake ? power / voltage / 3 : 0;
    yield [
      toDanishIso(at),
      (energyWh / 1000).toFixed(3),
      power.toFixed(1),
      voltage.toFixed(1),
      current.toFixed(2),
      awake ? (49.95 + ((i * 13) % 10) / 100).toFixed(2) : '0.00',
      (12 + sun * 30).toFixed(1),
      (yieldTenths / 10).toFixed(1),
    ].join(',');
  }
}

/** Writes a CSV of `count` hourly rows to `file`, streaming, so large files cost no memory. */
export async function writeSolarCsv(file: string, firstHour: Date, count: number): Promise<void> {
  const out = createWriteStream(file);
  out.write(`${SOLAR_HEADER}\n`);
  for (const line of solarLines(firstHour, count)) {
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}
