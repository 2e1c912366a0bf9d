// Command export writes yesterday's accounting export and exits. It is run
// by the CronJob in deploy/cronjob-export.yaml; re-running it for the same
// day overwrites that day's file.
package main

import (
	"context"
	"database/sql"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/ledgerly/ledgerly/src/export"
)

func main() {
	dir := flag.String("dir", "/export", "directory synced to the finance SFTP drop")
	dayFlag := flag.String("day", "", "day to export (YYYY-MM-DD, UTC); default yesterday")
	flag.Parse()

	day := time.Now().UTC().AddDate(0, 0, -1)
	if *dayFlag != "" {
		d, err := time.Parse(time.DateOnly, *dayFlag)
		if err != nil {
			slog.Error("bad -day", "err", err)
			os.Exit(2)
		}
		day = d
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()

	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		slog.Error("open database", "err", err)
		os.Exit(1)
	}
	defer db.Close()

	name := filepath.Join(*dir, "ledgerly-"+day.Format(time.DateOnly)+".csv")
	tmp := name + ".part"
	f, err := os.Create(tmp)
	if err != nil {
		slog.Error("create export file", "err", err)
		os.Exit(1)
	}
	n, err := export.Run(ctx, db, day, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		slog.Error("export failed", "day", day.Format(time.DateOnly), "err", err)
		os.Exit(1)
	}
	slog.Info("export done", "file", name, "invoices", n)
}
