create schema if not exists btc;
