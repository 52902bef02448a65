// Command ferretdb is a tiny wrapper around FerretDB v1's embeddable package, used as a local
// MongoDB wire-protocol stand-in for integration tests (see infra/README.md).
//
// Building FerretDB as a dependency (instead of `go install .../cmd/ferretdb`) avoids the
// start-up panic about a missing build/version/version.txt: that check only runs when the
// main module is FerretDB itself.
//
// Usage:
//
//	ferretdb [serve] -listen-addr 127.0.0.1:27017 -handler postgresql -postgresql-url postgres://user@127.0.0.1:5433/db [-log-level info]
//	ferretdb [serve] -listen-addr 127.0.0.1:27017 -handler sqlite -sqlite-dir /abs/dir [-log-level info]
//	ferretdb ping  -uri mongodb://127.0.0.1:27017 [-timeout 2s]   # MongoDB `ping` over the wire
//	ferretdb smoke -uri mongodb://127.0.0.1:27017                 # insert + find one document
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

func main() {
	args := os.Args[1:]
	cmd := "serve"
	if len(args) > 0 && (args[0] == "serve" || args[0] == "ping" || args[0] == "smoke") {
		cmd, args = args[0], args[1:]
	}

	var err error
	switch cmd {
	case "serve":
		err = serve(args)
	case "ping":
		err = withClient(cmd, args, ping)
	case "smoke":
		err = withClient(cmd, args, smoke)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "ferretdb %s: %s\n", cmd, err)
		os.Exit(1)
	}
}

// serve runs FerretDB with the PostgreSQL or the SQLite backend until SIGTERM or SIGINT.
func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	listenAddr := fs.String("listen-addr", "127.0.0.1:27017", "TCP listen address")
	handler := fs.String("handler", "sqlite", "storage backend: postgresql or sqlite")
	pgURL := fs.String("postgresql-url", "", "PostgreSQL URL, for -handler postgresql (the database must exist)")
	sqliteDir := fs.String("sqlite-dir", "", "directory for the SQLite files (one per database), for -handler sqlite")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	_ = fs.Parse(args)

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return err
	}
	logger := slog.New(quietHandler{slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})})

	config := &ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: *listenAddr},
		Logger:   logger,
		Handler:  *handler,
	}
	var storage string
	switch *handler {
	case "postgresql":
		if *pgURL == "" {
			return errors.New("-postgresql-url is required with -handler postgresql")
		}
		config.PostgreSQLURL = *pgURL
		storage = *pgURL
	case "sqlite":
		if *sqliteDir == "" {
			return errors.New("-sqlite-dir is required with -handler sqlite")
		}
		dir, err := filepath.Abs(*sqliteDir)
		if err != nil {
			return err
		}
		// FerretDB requires an existing directory and a trailing slash in the URI.
		if err = os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		config.SQLiteURL = "file:" + dir + "/"
		storage = dir
	default:
		return fmt.Errorf("-handler %q: use postgresql or sqlite", *handler)
	}

	f, err := ferretdb.New(config)
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	logger.Info("ferretdb wrapper starting", "listen", *listenAddr, "handler", *handler, "storage", storage, "pid", os.Getpid())
	err = f.Run(ctx)
	logger.Info("ferretdb wrapper stopped")
	return err
}

// quietHandler drops the ERROR record that FerretDB's pgx tracer writes for every statement
// PostgreSQL rejects with unique_violation (SQLSTATE 23505): that is each duplicate key (E11000)
// a client is answered, e.g. every guarded upsert that loses, and it would log the whole document.
type quietHandler struct{ slog.Handler }

func (h quietHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError && isUniqueViolation(r) {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h quietHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietHandler{h.Handler.WithAttrs(attrs)}
}

func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{h.Handler.WithGroup(name)}
}

func isUniqueViolation(r slog.Record) bool {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		if err, ok := a.Value.Any().(error); ok && a.Key == "err" &&
			strings.HasSuffix(err.Error(), "(SQLSTATE 23505)") {
			found = true
		}
		return !found
	})
	return found
}

// withClient connects a real MongoDB Go driver to -uri and runs fn.
func withClient(name string, args []string, fn func(context.Context, *mongo.Client) error) error {
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	uri := fs.String("uri", "mongodb://127.0.0.1:27017", "MongoDB URI")
	timeout := fs.Duration("timeout", 3*time.Second, "overall timeout")
	_ = fs.Parse(args)

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	opts := options.Client().ApplyURI(*uri).
		SetServerSelectionTimeout(*timeout).
		SetConnectTimeout(*timeout)
	client, err := mongo.Connect(ctx, opts)
	if err != nil {
		return err
	}
	defer func() { _ = client.Disconnect(context.Background()) }()

	return fn(ctx, client)
}

// ping sends the `ping` command; FerretDB answers it only when its backend works.
func ping(ctx context.Context, client *mongo.Client) error {
	var res bson.M
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Decode(&res); err != nil {
		return err
	}
	fmt.Printf("ping: %v\n", res)
	return nil
}

// smoke inserts one document into a scratch database, reads it back and drops the database.
func smoke(ctx context.Context, client *mongo.Client) error {
	db := client.Database("infra_smoke")
	defer func() {
		// Not ctx: the database is dropped even after a failure, but never waits for ever.
		dropCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = db.Drop(dropCtx)
	}()

	coll := db.Collection("smoke")
	want := fmt.Sprintf("hello-%d", time.Now().UnixNano())
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: want}, {Key: "n", Value: 1}}); err != nil {
		return fmt.Errorf("insert: %w", err)
	}

	var got bson.M
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: want}}).Decode(&got); err != nil {
		return fmt.Errorf("find: %w", err)
	}
	fmt.Printf("smoke: inserted and found %v\n", got)
	return nil
}
