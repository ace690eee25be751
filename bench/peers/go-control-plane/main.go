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
	"sync"
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

	xds := newXDSListener(xdsListener, serverv3.NewServer(ctx, cache, nil))
	httpServer := &http.Server{Handler: benchHandler(ctx, state, xds)}
	go func() { _ = httpServer.Serve(benchListener) }()

	ready, _ := json.Marshal(map[string]int{
		"xdsPort":   xdsListener.Addr().(*net.TCPAddr).Port,
		"benchPort": benchListener.Addr().(*net.TCPAddr).Port,
		"pid":       os.Getpid(),
	})
	fmt.Println(string(ready))

	<-ctx.Done()
	_ = httpServer.Close()
	xds.down()
	return nil
}

// xdsListener is the peer's xDS port, which the bench API can close and open again on the
// same address (POST /bench/down, /bench/up), as the mock's `down` and `up` do.
type xdsListener struct {
	mu      sync.Mutex
	address string
	ads     serverv3.Server
	grpc    *grpc.Server
}

func newXDSListener(listener net.Listener, ads serverv3.Server) *xdsListener {
	x := &xdsListener{address: listener.Addr().String(), ads: ads}
	x.serve(listener)
	return x
}

// serve starts a gRPC server on listener with the options of go-control-plane's own example
// server: no stream limit that the benchmark would hit, and keepalive settings suited to
// long-lived xDS streams. The same xDS server (and so the same snapshot cache) serves
// every listener the peer opens.
func (x *xdsListener) serve(listener net.Listener) {
	x.grpc = grpc.NewServer(
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
	discoverygrpc.RegisterAggregatedDiscoveryServiceServer(x.grpc, x.ads)
	server := x.grpc
	go func() { _ = server.Serve(listener) }()
}

// down closes the listener and every connection with its streams (grpc.Server.Stop): new
// connections are refused and every open stream ends, as with the mock's `down`.
func (x *xdsListener) down() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.grpc == nil {
		return false
	}
	x.grpc.Stop()
	x.grpc = nil
	return true
}

// up listens again on the same address.
func (x *xdsListener) up() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.grpc != nil {
		return nil
	}
	listener, err := net.Listen("tcp", x.address)
	if err != nil {
		return fmt.Errorf("cannot listen for xDS again on %s: %w", x.address, err)
	}
	x.serve(listener)
	return nil
}
