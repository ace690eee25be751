// A proxyless gRPC client and server built on grpc-go's own xDS support, for docs/proxyless.md
// and the tests: both read the bootstrap GRPC_XDS_BOOTSTRAP names (what `mock-istiod bootstrap --grpc`
// writes) and take their configuration from the control plane there.
//
//	grpc-xds-go server -port 7070
//	grpc-xds-go client -target xds:///echo.default.svc.cluster.local:7070 -n 5 [-wait]
//
// The server answers `echo:<request> from <client's SPIFFE id or "plaintext">`. The client
// prints one JSON line per RPC: {"ok":true,"reply":"…"} or {"ok":false,"code":"…","error":"…"}.
// Several comma-separated targets give a channel each: grpc-go (≥ 1.66) then opens an xDS
// stream per target name, all with one node (istio#53532).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	xdscreds "google.golang.org/grpc/credentials/xds"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/xds"
)

// raw passes request and reply bytes through as they are: no generated code needed.
type raw struct{}

func (raw) Marshal(v any) ([]byte, error) { return *(v.(*[]byte)), nil }
func (raw) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}
func (raw) Name() string { return "proto" }

const method = "/mock.test.Echo/Echo"

func main() {
	if len(os.Args) < 2 {
		fail("usage: grpc-xds-go server|client [flags]")
	}
	awaitBootstrap(60 * time.Second)
	switch os.Args[1] {
	case "server":
		server(os.Args[2:])
	case "client":
		client(os.Args[2:])
	default:
		fail("unknown mode " + os.Args[1])
	}
}

// awaitBootstrap waits for the file GRPC_XDS_BOOTSTRAP names: in a pod of Istio's grpc-agent
// template, the agent beside the application writes it once it has started.
func awaitBootstrap(limit time.Duration) {
	path := os.Getenv("GRPC_XDS_BOOTSTRAP")
	for deadline := time.Now().Add(limit); path != ""; time.Sleep(200 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil || time.Now().After(deadline) {
			return
		}
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "grpc-xds-go: "+msg)
	os.Exit(2)
}

func server(args []string) {
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	port := fs.Int("port", 7070, "port to serve on (all interfaces)")
	call := fs.String("call", "", "also be a client: an RPC to this xds:/// target every 100 ms")
	_ = fs.Parse(args)
	creds, err := xdscreds.NewServerCredentials(xdscreds.ServerOptions{FallbackCreds: insecure.NewCredentials()})
	if err != nil {
		fail(err.Error())
	}
	s, err := xds.NewGRPCServer(grpc.Creds(creds), grpc.ForceServerCodec(raw{}))
	if err != nil {
		fail(err.Error())
	}
	s.RegisterService(&grpc.ServiceDesc{
		ServiceName: "mock.test.Echo",
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{MethodName: "Echo", Handler: func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			var in []byte
			if err := dec(&in); err != nil {
				return nil, err
			}
			out := []byte(fmt.Sprintf("echo:%s from %s", in, peerID(ctx)))
			return &out, nil
		}}},
	}, struct{}{})
	l, err := net.Listen("tcp", fmt.Sprintf(":%d", *port))
	if err != nil {
		fail(err.Error())
	}
	fmt.Printf("{\"serving\":%q}\n", l.Addr().String())
	if *call != "" {
		go client([]string{"-target", *call, "-n", "1000000", "-interval", "100ms"})
	}
	go func() {
		signals := make(chan os.Signal, 1)
		signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
		<-signals
		s.Stop()
	}()
	if err := s.Serve(l); err != nil {
		fail(err.Error())
	}
}

// peerID is the client certificate's first URI SAN, or "plaintext".
func peerID(ctx context.Context) string {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return "unknown"
	}
	if info, ok := p.AuthInfo.(credentials.TLSInfo); ok && len(info.State.PeerCertificates) > 0 {
		if uris := info.State.PeerCertificates[0].URIs; len(uris) > 0 {
			return uris[0].String()
		}
		return "tls-without-uri"
	}
	return "plaintext"
}

type result struct {
	OK    bool   `json:"ok"`
	Reply string `json:"reply,omitempty"`
	Code  string `json:"code,omitempty"`
	Error string `json:"error,omitempty"`
	MS    int64  `json:"ms"`
}

func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	target := fs.String("target", "", "xds:///host:port, or several, comma-separated: a channel each, RPCs in turn")
	n := fs.Int("n", 1, "RPCs to make, one after another")
	wait := fs.Bool("wait", false, "wait for ready")
	interval := fs.Duration("interval", 0, "pause between RPCs")
	deadline := fs.Duration("deadline", 10*time.Second, "each RPC's deadline")
	_ = fs.Parse(args)
	if *target == "" {
		fail("-target is required")
	}
	creds, err := xdscreds.NewClientCredentials(xdscreds.ClientOptions{FallbackCreds: insecure.NewCredentials()})
	if err != nil {
		fail(err.Error())
	}
	var conns []*grpc.ClientConn
	for _, t := range strings.Split(*target, ",") {
		conn, err := grpc.NewClient(t, grpc.WithTransportCredentials(creds))
		if err != nil {
			fail(err.Error())
		}
		defer conn.Close()
		conns = append(conns, conn)
	}
	out := json.NewEncoder(os.Stdout)
	for i := 0; i < *n; i++ {
		if i > 0 && *interval > 0 {
			time.Sleep(*interval)
		}
		ctx, cancel := context.WithTimeout(context.Background(), *deadline)
		start := time.Now()
		in := []byte(fmt.Sprintf("rpc-%d", i))
		var reply []byte
		opts := []grpc.CallOption{grpc.ForceCodec(raw{})}
		if *wait {
			opts = append(opts, grpc.WaitForReady(true))
		}
		err := conns[i%len(conns)].Invoke(ctx, method, &in, &reply, opts...)
		cancel()
		r := result{OK: err == nil, Reply: string(reply), MS: time.Since(start).Milliseconds()}
		if err != nil {
			st, _ := status.FromError(err)
			r.Code = st.Code().String()
			r.Error = st.Message()
		}
		_ = out.Encode(r)
	}
}
