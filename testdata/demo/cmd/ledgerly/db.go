package main

// The "pgx" database/sql driver; DATABASE_URL is a postgres:// URL.
import _ "github.com/jackc/pgx/v5/stdlib"

const driverName = "pgx"
