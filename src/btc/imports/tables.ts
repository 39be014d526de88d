import type { Generated } from 'kysely';

export interface ImportedEventsTable {
  event_id: number;
  source: 'kraken' | 'csv';
  reference: string;
}

export interface PurchaseLotsTable {
  id: Generated<number>;
  exchange: number;
  source: 'kraken' | 'csv';
  reference: string;
  acquired_at: Date;
  occurred_at: string;
  sats: number;
  amount: string;
  currency: 'EUR' | 'DKK' | 'USD';
}

export interface LotAllocationsTable {
  event_id: number;
  lot_id: number;
  sats: number;
}

export interface ImportTables {
  'btc.imported_events': ImportedEventsTable;
  'btc.purchase_lots': PurchaseLotsTable;
  'btc.lot_allocations': LotAllocationsTable;
}
