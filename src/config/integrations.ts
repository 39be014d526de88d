import { parseMqttUrl, type MqttBroker } from './values.js';
import { baseUrl, flag, section, variable, type Reading } from './variable.js';

const HTTP = ['http:', 'https:'];
const TOPIC = '^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*$';

/** `<prefix>/status` is satwatt's availability, `<discovery>/status` Home Assistant's birth message. */
function topic(doc: { default: string; meaning: string }, other?: 'MQTT_DISCOVERY_PREFIX') {
  return variable(
    doc,
    (t) => t.String({ pattern: TOPIC, maxLength: 100 }),
    (v, read) => {
      if (!new RegExp(TOPIC).test(v) || v.length > 100)
        read.refuse(
          `expected topic levels of letters, digits, _ and - joined by /, got "${v.slice(0, 100)}"`,
          0,
        );
      if (other && v === read.text(other))
        read.refuse(`must differ from ${other} ("${read.text(other)}")`, 0);
      return v;
    },
  );
}

function homeAssistantUrl(v: string, read: Reading): string | null {
  if (v === '') return null;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return read.refuse(`not a valid URL: "${v.slice(0, 200)}"`, null);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    read.refuse(`expected Home Assistant's http:// or https:// address, got "${u.protocol}"`, 0);
  else if (u.username || u.password)
    read.refuse('must not hold credentials: the access token goes in HA_TOKEN', 0);
  else if (read.text('HA_TOKEN') === '')
    read.refuse('needs HA_TOKEN, a long-lived access token made in Home Assistant', 0);
  return v.replace(/\/+$/, '');
}

/** The providers' addresses, and what satwatt tells Home Assistant. */
export const INTEGRATIONS = {
  ...section('Provider base URLs: tests, proxies and mirrors can stand in', {
    SPOT_FEED_URL: baseUrl(
      { default: 'wss://ws.kraken.com/v2', meaning: 'Kraken WebSocket v2 (live BTC price)' },
      ['ws:', 'wss:'],
    ),
    OHLC_FEED_URL: baseUrl({ default: 'https://api.kraken.com', meaning: 'Kraken REST (candles)' }, HTTP),
    QUOTE_FEED_URL: baseUrl({ default: 'https://api.strike.me', meaning: 'Strike (broker quotes)' }, HTTP),
    RATES_FEED_URL: baseUrl(
      { default: 'https://api.frankfurter.dev', meaning: 'Frankfurter (ECB reference rates)' },
      HTTP,
    ),
    PRICE_FEED_URL: baseUrl(
      {
        default: 'https://api.energidataservice.dk',
        meaning: 'Energi Data Service (day-ahead prices, tariffs)',
      },
      HTTP,
    ),
    METERING_FEED_URL: baseUrl(
      { default: 'https://api.eloverblik.dk', meaning: 'Eloverblik (metering data, charges)' },
      HTTP,
    ),
  }),
  ...section('Home Assistant over MQTT', {
    MQTT_URL: variable(
      {
        default: '',
        meaning:
          'MQTT broker for Home Assistant, `mqtt://user:password@host:1883` or `mqtts://…`; empty means off (see [Home Assistant](docs/homeassistant.md)). The credentials never appear in logs or `/health`',
        secret: true,
      },
      (t) =>
        t.Union([
          t.Unsafe<MqttBroker>(
            t.Object({
              url: t.String(),
              username: t.Optional(t.String()),
              password: t.Optional(t.String()),
            }),
          ),
          t.Null(),
        ]),
      (v, read) => {
        if (v === '') return null;
        try {
          return parseMqttUrl(v);
        } catch (e) {
          return read.refuse((e as Error).message, null);
        }
      },
    ),
    MQTT_TOPIC_PREFIX: topic(
      {
        default: 'satwatt',
        meaning:
          'topics of the states (`<prefix>/<entity>/state`) and of the availability (`<prefix>/status`)',
      },
      'MQTT_DISCOVERY_PREFIX',
    ),
    MQTT_DISCOVERY_PREFIX: topic({
      default: 'homeassistant',
      meaning:
        "Home Assistant's discovery prefix (its birth message comes on `<prefix>/status`); must differ from `MQTT_TOPIC_PREFIX`",
    }),
    MQTT_PRIVATE: flag({
      default: 'false',
      meaning:
        "also publish the household's own figures over MQTT: portfolio value, sats and unrealized result, electricity costs of the last day metered whole and of this month through it",
    }),
  }),
  ...section('Home Assistant statistics', {
    HA_URL: variable(
      {
        default: '',
        meaning:
          "Home Assistant's base URL, `http://homeassistant.local:8123` or `https://…`: the metered consumption, production and their cost are written to it as long-term statistics for its Energy dashboard (see [Home Assistant](docs/homeassistant.md#energy-dashboard-statistics)); empty means off",
      },
      (t) => t.Union([t.String(), t.Null()]),
      homeAssistantUrl,
    ),
    HA_TOKEN: variable(
      {
        default: '',
        meaning:
          'a long-lived access token of a Home Assistant administrator, needed with `HA_URL`; it never appears in logs or `/health`',
        secret: true,
      },
      (t) => t.Union([t.String(), t.Null()]),
      (v, read) => {
        if (v === '') return null;
        if (read.text('HA_URL') === '') read.refuse('needs HA_URL, the address of Home Assistant', 0);
        return v;
      },
    ),
  }),
};
