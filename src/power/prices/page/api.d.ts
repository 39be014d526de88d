// Generated from the schemas of the routes by `npm run page-types` (src/power/prices/page-types.ts):
// change the schemas, not this file.

/** GET /api/elprice */
export type ElpriceDay = {
  date: string;
  /**
   * every hour of the day is stored for the area(s) asked for; false: prices not (all) published
   * yet
   */
  complete: boolean;
  /** hours of this Danish day: 23, 24 or 25 */
  hours: number;
  /** ordered by time_dk, price_area */
  items: {
    /** start of the period, ISO 8601 with the Danish offset of that instant */
    time_dk: string;
    price_area: string;
    /** day-ahead price, DKK/MWh; the exact mean of the hour’s quarters */
    price_dkk: number;
    /** grid tariff, DKK/MWh (øre/kWh × 10); null when no tariff period covers the hour */
    tariff_dkk: number | null;
    /**
     * price_dkk + tariff_dkk: the spot price and the grid tariff only, DKK/MWh, without the other
     * tariffs, the electricity tax, the markup and VAT. Not what a kWh costs the household: that is
     * /api/consumer-prices’ total (DKK/kWh, all in, VAT included). null with tariff_dkk
     */
    total_dkk: number | null;
  }[];
};

/** GET /api/prices */
export type PricesDay = {
  date: string;
  area: string | null;
  /** the rows cover the whole day for the area(s) asked for */
  complete: boolean;
  /** ordered by time_dk, price_area */
  items: {
    /** start of the period, ISO 8601 with the Danish offset of that instant */
    time_dk: string;
    price_area: string;
    /** 15 from 2025-10-01, 60 before */
    resolution_minutes: number;
    /** DKK/MWh */
    price_dkk: number;
    /** EUR/MWh */
    price_eur: number | null;
  }[];
};

/** GET /api/consumer-prices */
export type ConsumerPrices = {
  date: string;
  area: string;
  resolution: 'hour' | 'quarter';
  /** every hour (23, 24 or 25) or quarter hour (92, 96 or 100) of the day is stored and has a total */
  complete: boolean;
  /**
   * a grid company applies (from the metering token, or GRID_COMPANY_GLN); false: no total has a
   * grid tariff
   */
  configured: boolean;
  grid_company: {
    gln: string;
    name: string | null;
    source: string;
  } | null;
  /** what is missing, in words, when not configured */
  note: string | null;
  /** the stored hours or quarter hours of the day, in order */
  items: {
    /** start of the hour, ISO 8601 with the Danish offset of that instant */
    time_dk: string;
    /** day-ahead price: the quarter's, or for an hour the exact mean of its quarters, DKK/kWh */
    spot: number;
    /**
     * the household's grid tariff of the hour (its meter's, else GRID_COMPANY_GLN's), excl. VAT;
     * null when none applies, DKK/kWh
     */
    grid_tariff: number | null;
    /** Energinet's transmission tariff (40000), excl. VAT, DKK/kWh */
    transmission_tariff: number | null;
    /** Energinet's system tariff (41000), excl. VAT, DKK/kWh */
    system_tariff: number | null;
    /** electricity tax (elafgift, EA-001), excl. VAT, DKK/kWh */
    electricity_tax: number | null;
    /** every other tariff the household pays per kWh (as its meter lists them), excl. VAT, DKK/kWh */
    other_tariffs: number;
    /** the supplier's markup (SUPPLIER_MARKUP_DKK_KWH), excl. VAT, DKK/kWh */
    supplier_markup: number;
    /** VAT_RATE times the sum of the parts above; null when one is missing, DKK/kWh */
    vat: number | null;
    /**
     * the all-in price of a kWh: the sum of the parts plus VAT; null when a charge is missing,
     * never guessed. Not /api/elprice’s total_dkk (spot + grid tariff only, DKK/MWh), DKK/kWh
     */
    total: number | null;
  }[];
};

/** GET /api/cheapest?hours= */
export type Cheapest = {
  area: string;
  hours: number;
  /** start of the hour, ISO 8601 with the Danish offset of that instant */
  start_dk: string;
  /** end of the last hour (exclusive), with the Danish offset */
  end_dk: string;
  /** mean price of the window, DKK/kWh */
  average_dkk_kwh: number;
  /**
   * total: consumer price incl. VAT; spot: a charge is missing for some hour searched, so the
   * window is ranked on the spot price
   */
  basis: 'total' | 'spot';
};

/** GET /api/cheapest?minutes= */
export type CheapestWindow = {
  area: string;
  minutes: number;
  /** start of the first quarter hour, ISO 8601 with the Danish offset */
  start_dk: string;
  /** end of the last quarter hour (exclusive), ISO 8601 with the Danish offset */
  end_dk: string;
  /** the mean price of its quarter hours, DKK/kWh */
  average_dkk_kwh: number;
  /**
   * total: the all-in price incl. VAT (the household's charges are known for every quarter hour
   * searched); spot: a charge is missing for some quarter hour searched, so every window is ranked
   * on the spot price
   */
  basis: 'total' | 'spot';
};
