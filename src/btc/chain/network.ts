/** The networks a watch key and ESPLORA_URL may be of (CHAIN_NETWORK). Apart, so that the config reads them without the key libraries. */
export const NETWORKS = ['mainnet', 'testnet', 'signet', 'regtest'] as const;
export type Network = (typeof NETWORKS)[number];
