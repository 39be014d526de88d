/**
 * Every Danish grid company (DSO) as data: its GLN in DataHub, its name, the notes (DatahubPricelist's
 * `Note`) of its household (C-customer) tariff, and the charge codes the public integrations list.
 * The codes are found in DatahubPricelist by the notes at run time, so a renamed code needs no
 * release; the listed codes are asked for only when no record carries a note. `confirmed` names
 * the public lists that agree on the entry (docs/power.md has the table).
 */
export interface GridCompany {
  gln: string;
  name: string;
  notes: string[];
  codes: string[];
  confirmed: string;
}

const OH = 'openHAB binding';
const MT = 'MTrab/energidataservice';

export const GRID_COMPANIES: readonly GridCompany[] = [
  {
    gln: '5790001095451',
    name: 'Aal El-Net A.m.b.A',
    notes: ['Nettarif C time'],
    codes: ['AAL-NT-05', 'AAL-NTR05'],
    confirmed: `${OH}, ${MT}`,
  },
  {
    gln: '5790000705184',
    name: 'Cerius A/S',
    notes: ['Nettarif C time'],
    codes: ['30TR_C_ET'],
    confirmed: `${OH}, ${MT}`,
  },
  {
    gln: '5790000610099',
    name: 'Dinel A/S',
    notes: ['Nettarif C time'],
    codes: ['TCL>100_02', 'TCL<100_52'],
    confirmed: `${OH}, ${MT}`,
  },
  {
    gln: '5790000836239',
    name: 'Elektrus A/S',
    notes: ['Nettarif C time'],
    codes: ['6000091'],
    confirmed: `${OH}, ${MT}`,
  },
  {
    gln: '5790001095277',
    name: 'Elinord A/S',
    notes: ['Transportbetaling, eget net C'],
    codes: ['43300'],
    confirmed: `${OH}, ${MT}`,
  },
  {
    gln: '5790001100520',
    name: 'Elnet Midt A/S',
    notes: ['Nettarif C'],
    codes: ['T3001'],
    confirmed: `${OH}, ${MT}`,
  },
  {
    gln: '5790002502699',
    name: 'El-net Kongerslev A/S',
    notes: ['Nettarif C'],
    codes: ['K_22100', 'C-Tarif'],
    confirmed: `${OH} (note, K_22100); ${MT} lists C-Tarif`,
  },
  {
    gln: '5790000392551',
    name: 'FLOW Elnet A/S',
    notes: ['Nettarif C', 'Nettarif C time'],
    codes: ['FE1 NT-01', 'FE2 NT-01'],
    confirmed: `${OH}, ${MT} (FE1 NT-01 from 2025)`,
  },
  {
    gln: '5790001088309',
    name: 'Forsyning Elnet A/S',
    notes: ['Nettarif C'],
    codes: ['STR-NT-03'],
    confirmed: `${OH}, ${MT}`,
  },
  {
    gln: '5790001090166',
    name: 'Hammel Elforsyning Net A/S',
    notes: ['Overliggende net'],
    codes: ['C-Tarif', '50001'],
    confirmed: `${OH} (note, 50001); ${MT} lists C-Tarif since 2023-05`,
  },
  {
    gln: '5790000610839',
    name: 'Hurup Elværk Net A/S',
    notes: ['Nettarif fra 0-100000 kWh', 'Nettarif'],
    codes: ['HEV-NT-01T', 'HEV-NT-01'],
    confirmed: `${OH} (Nettarif, HEV-NT-01); ${MT} (HEV-NT-01T from 2025-04)`,
  },
  {
    gln: '5790000682102',
    name: 'Ikast El Net A/S',
    notes: ['Nettarif C time'],
    codes: ['IEV-NT-01'],
    confirmed: `${OH}, ${MT}`,
  },
  {
    gln: '5790000704842',
    name: 'Konstant Net A/S',
    notes: ['Nettarif C time'],
    codes: ['C_FBTNTR_B', 'C_FBTNTR_R'],
    confirmed: `${MT} (codes, 2026-04; its 2023 list the note); ${OH} lists the older 151-NT01T`,
  },
  {
    gln: '5790001090111',
    name: 'L-Net A/S',
    notes: ['Nettarif C time'],
    codes: ['3000', '4010'],
    confirmed: `${OH} (note, 4010); ${MT} (3000 from 2025-04)`,
  },
  {
    gln: '5790001089023',
    name: 'Midtfyns Elforsyning A.m.b.A',
    notes: ['Nettarif C Flex'],
    codes: ['TNT15000'],
    confirmed: `${OH}, ${MT}`,
  },
  {
    gln: '5790001089030',
    name: 'N1 A/S',
    notes: ['Nettarif C'],
    codes: ['CD', 'CD R'],
    confirmed: `${OH}, ${MT} (codes); ${MT} 2023 list (note)`,
  },
  {
    gln: '5790000681358',
    name: 'Netselskabet Elværk A/S',
    notes: ['Nettarif C Flex'],
    codes: ['5NCFF'],
    confirmed: `${OH}, ${MT}`,
  },
  {
    gln: '5790001088231',
    name: 'NKE-Elnet A/S',
    notes: ['Nettarif C time'],
    codes: ['94TR_C_ET'],
    confirmed: `${OH}; merged into Cerius in 2025 (${MT})`,
  },
  {
    gln: '5790000610877',
    name: 'Nord Energi Net A/S',
    notes: ['Nettarif C'],
    codes: ['TAC'],
    confirmed: `${OH}, ${MT}`,
  },
  {
    gln: '5790000395620',
    name: 'NOE Net A/S',
    notes: ['Nettarif C'],
    codes: ['30030'],
    confirmed: `${OH}, ${MT}`,
  },
  {
    gln: '5790000705689',
    name: 'Radius Elnet A/S',
    notes: ['Nettarif C time', 'Nettarif C'],
    codes: ['DT_C_01', 'DC_C_01'],
    confirmed: `${OH} (Nettarif C, DT_C_01), ${MT}, the meter's charge list (Nettarif C time)`,
  },
  {
    gln: '5790000681327',
    name: 'RAH Net A/S',
    notes: ['Nettarif C time'],
    codes: ['RAH-C'],
    confirmed: `${OH}, ${MT}`,
  },
  {
    gln: '5790000836727',
    name: 'Ravdex A/S',
    notes: ['Nettarif C time'],
    codes: ['NT-C'],
    confirmed: `${OH}, ${MT}`,
  },
  {
    gln: '5790001095444',
    name: 'Sunds Net A.m.b.A',
    notes: ['Nettarif C Flex - time'],
    codes: ['SEF-NT-05', 'SEF-NT-05R'],
    confirmed: `${OH}, ${MT}`,
  },
  {
    gln: '5790000706419',
    name: 'Tarm Elværk Net A/S',
    notes: ['Nettarif C'],
    codes: ['TEV-NT-01T', 'TEV-NT-01', 'TEV-NT-01R'],
    confirmed: `${OH}, ${MT} (TEV-NT-01T from 2026)`,
  },
  {
    gln: '5790000392261',
    name: 'TREFOR El-net A/S',
    notes: ['Nettarif C time'],
    codes: ['C'],
    confirmed: `${OH}, ${MT}, a recorded DatahubPricelist answer`,
  },
  {
    gln: '5790000706686',
    name: 'TREFOR El-net Øst A/S',
    notes: ['Nettarif C time'],
    codes: ['46'],
    confirmed: `${OH}, ${MT}`,
  },
  {
    gln: '5790001088217',
    name: 'Veksel A/S',
    notes: ['Nettarif C time  NT-10'],
    codes: ['NT-10'],
    confirmed: `${OH}, ${MT}`,
  },
  {
    gln: '5790000610976',
    name: 'Vores Elnet A/S',
    notes: ['Nettarif C time'],
    codes: ['TNT1009'],
    confirmed: `${OH}, ${MT}`,
  },
  {
    gln: '5790001089375',
    name: 'Zeanet A/S',
    notes: ['Nettarif C time'],
    codes: ['43110'],
    confirmed: `${OH}, ${MT}`,
  },
];

export function gridCompany(gln: string): GridCompany | undefined {
  return GRID_COMPANIES.find((c) => c.gln === gln);
}
