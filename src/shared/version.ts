/** satwatt's version, as the OpenAPI document and Home Assistant's device registry show it. */
export const SATWATT_VERSION = '0.1.0';
