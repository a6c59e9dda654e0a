// Command harnish-temporal-dev is a single-node Temporal server for
// development and for harnish's integration tests: every service in one
// process, listening on 127.0.0.1, its state in one SQLite file.
//
//	cd contrib/temporal/devserver && go run . -dir ~/.harnish-temporal
//
// starts it on 127.0.0.1:7233 (-addr) with the namespace "default"
// (-namespace); SIGINT or SIGTERM stops it. The directory holds the
// database (temporal.db) and the pid file (devserver.pid); the log goes to
// stderr (-log-level). A second server on the same directory refuses to
// start while the first holds the pid file's lock.
//
// A server killed without a chance to stop (SIGKILL, a crash, a reboot)
// leaves its cluster membership rows behind; the next start on the same
// database would wait about a minute for those dead members to expire
// before it serves history again. A single-node server owns its database
// alone (the pid file's lock says so), so every start deletes the rows
// first.
//
// It is its own Go module because the server pins an older Temporal API
// than the SDK harnish's workflow is built with: the two talk over gRPC.
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/metrics"
	persistencesql "go.temporal.io/server/common/persistence/sql"
	"go.temporal.io/server/common/persistence/sql/sqlplugin"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	"go.temporal.io/server/common/resolver"
	"go.temporal.io/server/schema/sqlite"
	"go.temporal.io/server/temporal"
)

// Files in the server's directory.
const (
	dbFile  = "temporal.db"
	pidFile = "devserver.pid"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("harnish-temporal-dev", flag.ContinueOnError)
	dir := fs.String("dir", ".temporal", "the directory of the database and the pid file")
	addr := fs.String("addr", "127.0.0.1:7233", "the frontend's address (a loopback address)")
	namespaces := fs.String("namespace", "default", "namespaces to register, comma-separated")
	level := fs.String("log-level", "warn", "the server's log level: debug, info, warn, error")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := serve(*dir, *addr, strings.Split(*namespaces, ","), *level); err != nil {
		fmt.Fprintf(os.Stderr, "harnish-temporal-dev: %v\n", err)
		return 1
	}
	return 0
}

func serve(dir, addr string, namespaces []string, level string) error {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-addr %q: the dev server listens on a loopback address only", addr)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port <= 0 || port > 65535 {
		return fmt.Errorf("-addr %q: bad port", addr)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	unlock, err := lockPID(filepath.Join(dir, pidFile))
	if err != nil {
		return err
	}
	defer unlock()

	logger := log.NewZapLogger(log.BuildZapLogger(log.Config{Level: level}))
	db := &config.SQL{
		PluginName:        sqliteplugin.PluginName,
		DatabaseName:      filepath.Join(dir, dbFile),
		ConnectAttributes: map[string]string{"mode": "rwc", "journal_mode": "wal", "synchronous": "2"},
	}
	if err := prepareDB(db, namespaces); err != nil {
		return err
	}
	cfg, err := serverConfig(host, port, db)
	if err != nil {
		return err
	}
	authorizer, err := authorization.GetAuthorizerFromConfig(&cfg.Global.Authorization)
	if err != nil {
		return err
	}
	claims, err := authorization.GetClaimMapperFromConfig(&cfg.Global.Authorization, logger)
	if err != nil {
		return err
	}
	srv, err := temporal.NewServer(
		temporal.WithConfig(cfg),
		temporal.ForServices(temporal.DefaultServices),
		temporal.WithLogger(logger),
		temporal.WithAuthorizer(authorizer),
		temporal.WithClaimMapper(func(*config.Config) authorization.ClaimMapper { return claims }),
		temporal.WithCustomMetricsHandler(metrics.NoopMetricsHandler),
		temporal.WithDynamicConfigClient(dynamicconfig.StaticClient{
			// Search attributes are read fresh: a test may look a run up
			// right after it started.
			dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Key(): []dynamicconfig.ConstrainedValue{{Value: true}},
		}),
	)
	if err != nil {
		return fmt.Errorf("the server: %w", err)
	}
	if err := srv.Start(); err != nil {
		return fmt.Errorf("start the server: %w", err)
	}
	fmt.Fprintf(os.Stderr, "harnish-temporal-dev: serving on %s (database %s, pid %d)\n", addr, db.DatabaseName, os.Getpid())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	done := make(chan error, 1)
	go func() { done <- srv.Stop() }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		return errors.New("the server did not stop in 20s")
	}
}

// lockPID takes the pid file's lock and writes this process's pid in it.
// The lock (not the file's presence) says a server runs: a server that was
// killed leaves the file, and its lock is gone with it.
func lockPID(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		old, _ := os.ReadFile(path)
		f.Close()
		return nil, fmt.Errorf("a server already runs on this directory (pid %s, %s)", strings.TrimSpace(string(old)), path)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := fmt.Fprintf(f, "%d\n", os.Getpid()); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		os.Remove(path)
		f.Close()
	}, nil
}

// prepareDB creates the schema in a new database, registers the namespaces
// (a no-op for those that exist), and deletes the cluster membership rows a
// killed server left.
func prepareDB(db *config.SQL, namespaces []string) error {
	if _, err := os.Stat(db.DatabaseName); errors.Is(err, os.ErrNotExist) {
		if err := sqlite.SetupSchema(db); err != nil {
			return fmt.Errorf("create the schema in %s: %w", db.DatabaseName, err)
		}
	}
	var nss []*sqlite.NamespaceConfig
	for _, name := range namespaces {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		ns, err := sqlite.NewNamespaceConfig(clusterName, name, false, nil)
		if err != nil {
			return fmt.Errorf("namespace %q: %w", name, err)
		}
		nss = append(nss, ns)
	}
	if err := sqlite.CreateNamespaces(db, nss...); err != nil {
		return err
	}
	admin, err := persistencesql.NewSQLAdminDB(sqlplugin.DbKindUnknown, db, resolver.NewNoopResolver(), log.NewNoopLogger(), metrics.NoopMetricsHandler)
	if err != nil {
		return fmt.Errorf("open %s: %w", db.DatabaseName, err)
	}
	defer admin.Close()
	if err := admin.Exec("DELETE FROM cluster_membership"); err != nil {
		return fmt.Errorf("prune the cluster membership of %s: %w", db.DatabaseName, err)
	}
	return nil
}

const clusterName = "active"

// serverConfig is a single node's configuration: the frontend on host:port,
// the other services on free loopback ports, one history shard, SQLite for
// both the default and the visibility store, archival off.
func serverConfig(host string, port int, db *config.SQL) (*config.Config, error) {
	cfg := &config.Config{}
	cfg.Global.Membership = config.Membership{MaxJoinDuration: 30 * time.Second, BroadcastAddress: host}
	cfg.Persistence = config.Persistence{
		DefaultStore:     sqliteplugin.PluginName,
		VisibilityStore:  sqliteplugin.PluginName,
		NumHistoryShards: 1,
		DataStores:       map[string]config.DataStore{sqliteplugin.PluginName: {SQL: db}},
	}
	frontend := net.JoinHostPort(host, strconv.Itoa(port))
	cfg.ClusterMetadata = &cluster.Config{
		FailoverVersionIncrement: 10,
		MasterClusterName:        clusterName,
		CurrentClusterName:       clusterName,
		ClusterInformation: map[string]cluster.ClusterInformation{
			clusterName: {Enabled: true, InitialFailoverVersion: 1, RPCAddress: frontend},
		},
	}
	cfg.DCRedirectionPolicy = config.DCRedirectionPolicy{Policy: "noop"}
	cfg.Services = map[string]config.Service{}
	for _, name := range temporal.DefaultServices {
		grpcPort := port
		if name != "frontend" {
			p, err := freePort(host)
			if err != nil {
				return nil, err
			}
			grpcPort = p
		}
		mport, err := freePort(host)
		if err != nil {
			return nil, err
		}
		cfg.Services[name] = config.Service{RPC: config.RPC{GRPCPort: grpcPort, MembershipPort: mport, BindOnIP: host}}
	}
	cfg.Archival = config.Archival{
		History:    config.HistoryArchival{State: "disabled"},
		Visibility: config.VisibilityArchival{State: "disabled"},
	}
	cfg.NamespaceDefaults = config.NamespaceDefaults{Archival: config.ArchivalNamespaceDefaults{
		History:    config.HistoryArchivalNamespaceDefaults{State: "disabled"},
		Visibility: config.VisibilityArchivalNamespaceDefaults{State: "disabled"},
	}}
	cfg.PublicClient = config.PublicClient{HostPort: frontend}
	return cfg, nil
}

// freePort returns a port free on host now.
func freePort(host string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
