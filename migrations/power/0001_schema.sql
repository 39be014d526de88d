create schema if not exists power;
