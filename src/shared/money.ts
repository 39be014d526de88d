import { Big } from 'big.js';

/**
 * A fiat figure to the cent, rounded half up (half a cent away from zero for the positive
 * prices and amounts answered), as exact decimal text. Computed from exact inputs and rounded
 * once, here, wherever an answer, a stream message or an MQTT state carries it.
 */
export const cents = (x: Big | string): string => new Big(x).round(2, Big.roundHalfUp).toFixed(2);

/**
 * The same as a JSON number for the answers whose contract has numbers: a decimal of at most
 * 15 significant digits (any price below 10^13 to the cent) prints back exactly as its text.
 */
export const centsNumber = (x: Big | string): number => Number(cents(x));
