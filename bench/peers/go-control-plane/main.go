// Command peer is the benchmark's side-by-side peer: an ADS server built the way
// go-control-plane's users build one (its snapshot cache behind its xDS server), serving the
// same resource set as the mock so that one load generator can drive both in one run.
//
// It prints one JSON line on stdout once it listens:
//
//	{"xdsPort":40123,"benchPort":40124,"pid":1234}
//
// and serves a small benchmark-only HTTP API on the bench port (see bench.go). It is not a
// product: it exists to be measured next to mock-istiod.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	core "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	discoverygrpc "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	serverv3 "github.com/envoyproxy/go-control-plane/pkg/server/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

// snapshotKey is the one key every node maps to: all proxies share one snapshot, as all
// streams of the mock share one resource set.
const snapshotKey = "all"

// sharedHash maps every node to the same snapshot.
type sharedHash struct{}

func (sharedHash) ID(*core.Node) string { return snapshotKey }

func main() {
	host := flag.String("host", "127.0.0.1", "xDS and bench listen address")
	port := flag.Int("port", 0, "xDS port (0: a free one)")
	benchPort := flag.Int("bench-port", 0, "benchmark HTTP API port (0: a free one)")
	resourcesPath := flag.String("resources", "", "JSON array of Envoy resources in canonical proto3 JSON (required)")
	flag.Parse()
	if err := run(*host, *port, *benchPort, *resourcesPath); err != nil {
		fmt.Fprintf(os.Stderr, "peer: %v\n", err)
		os.Exit(2)
	}
}

func run(host string, port, benchPort int, resourcesPath string) error {
	if resourcesPath == "" {
		return fmt.Errorf("--resources is required")
	}
	set, err := loadResourceSet(resourcesPath)
	if err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()

	cache := cachev3.NewSnapshotCache(true, sharedHash{}, nil)
	state := newPeerState(cache, set)
	if err := state.publish(ctx); err != nil {
		return err
	}

	xdsListener, err := net.Listen("tcp", net.JoinHostPort(host, fmt.Sprint(port)))
	if err != nil {
		return fmt.Errorf("cannot listen for xDS: %w", err)
	}
	benchListener, err := net.Listen("tcp", net.JoinHostPort(host, fmt.Sprint(benchPort)))
	if err != nil {
		return fmt.Errorf("cannot listen for the bench API: %w", err)
	}

	// The gRPC options of go-control-plane's own example server: no stream limit that the
	// benchmark would hit, and keepalive settings suited to long-lived xDS streams.
	grpcServer := grpc.NewServer(
		grpc.MaxConcurrentStreams(1_000_000),
		grpc.KeepaliveParams(keepalive.ServerParameters{
			Time:    30 * time.Second,
			Timeout: 5 * time.Second,
		}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{
			MinTime:             30 * time.Second,
			PermitWithoutStream: true,
		}),
	)
	discoverygrpc.RegisterAggregatedDiscoveryServiceServer(grpcServer, serverv3.NewServer(ctx, cache, nil))
	httpServer := &http.Server{Handler: benchHandler(ctx, state)}

	go func() { _ = grpcServer.Serve(xdsListener) }()
	go func() { _ = httpServer.Serve(benchListener) }()

	ready, _ := json.Marshal(map[string]int{
		"xdsPort":   xdsListener.Addr().(*net.TCPAddr).Port,
		"benchPort": benchListener.Addr().(*net.TCPAddr).Port,
		"pid":       os.Getpid(),
	})
	fmt.Println(string(ready))

	<-ctx.Done()
	_ = httpServer.Close()
	grpcServer.Stop()
	return nil
}
