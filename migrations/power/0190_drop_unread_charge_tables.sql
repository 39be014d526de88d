-- The grid tariffs of 0003 and Energinet's charges of 0080, whose periods 0140 copied into
-- power.household_charges: no statement has read or written them since, so they go.
drop table power.tariff_periods;
drop table power.charge_periods;
