-- Wallet names are stored and compared in Unicode NFC (the API brings every new name to it), so
-- names stored before are brought to NFC too: "é" written as e and a combining accent becomes the
-- one character. A name whose NFC form another wallet already has is left as it is (changing it
-- would make two wallets one name); the household tells them apart by renaming one.
update btc.wallets w
set name = normalize(w.name, NFC)
where w.name is not nfc normalized
  and length(normalize(w.name, NFC)) <= 100
  and not exists (
    select 1 from btc.wallets o
    where o.id <> w.id and normalize(o.name, NFC) = normalize(w.name, NFC)
  );
