// Command istiod-ref runs istiod's own xDS server on real ports, without a cluster: the
// oracle of mock-istiod's conformance suite (docs/conformance.md).
//
// It builds istiod's DiscoveryServer, its generators and its debug handlers through Istio's
// test fake (pilot/test/xds), fed with Kubernetes objects and Istio configs from YAML files,
// and serves them on:
//   - a plaintext gRPC port, like istiod's 15010;
//   - optionally a TLS gRPC port that verifies client certificates when given, like 15012,
//     with istiod's client-certificate authenticator;
//   - (with -mesh) a MeshConfig, e.g. outboundTrafficPolicy, instead of istiod's defaults;
//   - an HTTP port with the debug handlers (/debug/syncz, /debug/config_dump, ...), plus
//     POST /ref/push, which asks for a full push as a config change would.
//
// When every port listens it prints one JSON line on stdout with their addresses, and runs
// until SIGTERM or SIGINT, or, with -exit-with-stdin, until stdin closes (so a parent that
// dies takes it along).
//
// It is built by scripts/install-istio.sh in the same scratch module as pilot-agent.
package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	istiogrpc "istio.io/istio/pilot/pkg/grpc"
	"istio.io/istio/pilot/pkg/model"
	istioxds "istio.io/istio/pilot/pkg/xds"
	v3 "istio.io/istio/pilot/pkg/xds/v3"
	"istio.io/istio/pilot/test/xds"
	"istio.io/istio/pkg/config/constants"
	"istio.io/istio/pkg/config/mesh"
	"istio.io/istio/pkg/keepalive"
	istiolog "istio.io/istio/pkg/log"
	"istio.io/istio/pkg/security"
	"istio.io/istio/pkg/test"
	xdspkg "istio.io/istio/pkg/xds"
	"istio.io/istio/security/pkg/server/ca/authenticate"
)

type options struct {
	kubeFile   string
	configFile string
	meshFile   string
	xdsAddr    string
	tlsAddr    string
	debugAddr  string
	certFile   string
	keyFile    string
	clientCA   string
	stdinExit  bool
}

type addresses struct {
	XDS    string `json:"xds"`
	TLSXDS string `json:"tlsXds,omitempty"`
	Debug  string `json:"debug"`
}

func main() {
	var o options
	flag.StringVar(&o.kubeFile, "kube", "", "YAML file of Kubernetes objects (Services, Pods, ...)")
	flag.StringVar(&o.configFile, "config", "", "YAML file of Istio configs")
	flag.StringVar(&o.meshFile, "mesh", "", "YAML file of a MeshConfig, over istiod's defaults (outboundTrafficPolicy, ...)")
	flag.StringVar(&o.xdsAddr, "xds", "127.0.0.1:0", "plaintext gRPC address (istiod's 15010)")
	flag.StringVar(&o.tlsAddr, "tls-xds", "", "TLS gRPC address (istiod's 15012); needs -cert and -key")
	flag.StringVar(&o.debugAddr, "debug", "127.0.0.1:0", "HTTP address of the debug handlers")
	flag.StringVar(&o.certFile, "cert", "", "server certificate (PEM) for -tls-xds")
	flag.StringVar(&o.keyFile, "key", "", "server key (PEM) for -tls-xds")
	flag.StringVar(&o.clientCA, "client-ca", "", "roots (PEM) that client certificates are verified against")
	flag.BoolVar(&o.stdinExit, "exit-with-stdin", false, "exit when stdin closes")
	flag.Parse()
	if o.tlsAddr != "" && (o.certFile == "" || o.keyFile == "") {
		fail("-tls-xds needs -cert and -key")
	}
	// istiod's log lines (the ACK/NACK/PUSH lines the suite compares) go to stderr, so that
	// stdout holds only the line of addresses.
	logOptions := istiolog.DefaultOptions()
	logOptions.OutputPaths = []string{"stderr"}
	if err := istiolog.Configure(logOptions); err != nil {
		fail(err.Error())
	}
	err := test.Wrap(func(t test.Failer) { run(t, o) })
	if err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "istiod-ref: "+msg)
	os.Exit(1)
}

func readFile(path string) string {
	if path == "" {
		return ""
	}
	b, err := os.ReadFile(path)
	if err != nil {
		fail(err.Error())
	}
	return string(b)
}

func run(t test.Failer, o options) {
	fakeOptions := xds.FakeOptions{
		KubernetesObjectString: readFile(o.kubeFile),
		ConfigString:           readFile(o.configFile),
	}
	if o.meshFile != "" {
		// Applied over istiod's own defaults, as istiod reads its mesh ConfigMap.
		meshConfig, err := mesh.ApplyMeshConfigDefaults(readFile(o.meshFile))
		if err != nil {
			fail(o.meshFile + ": " + err.Error())
		}
		fakeOptions.MeshConfig = meshConfig
	}
	fake := xds.NewFakeDiscoveryServer(t, fakeOptions)
	discovery := fake.Discovery
	// As istiod: the client certificate authenticates the TLS port; plaintext is not asked.
	discovery.Authenticators = []security.Authenticator{&authenticate.ClientCertAuthenticator{}}
	// istiod's DebugGen (istio.io/debug) runs its internal debug mux; the fake hands it none,
	// and the first request it passes would dereference nil. Given the fake's own, as istiod.
	discovery.Generators[v3.DebugType] = istioxds.NewDebugGen(
		discovery, constants.IstioSystemNamespace, fake.DiscoveryDebug)

	serverOptions := istiogrpc.ServerOptions(keepalive.DefaultOption(), xdspkg.RecordRecvSize)
	var out addresses

	plain := grpc.NewServer(serverOptions...)
	discovery.Register(plain)
	out.XDS = serve(o.xdsAddr, func(l net.Listener) error { return plain.Serve(l) })
	t.Cleanup(plain.Stop)

	if o.tlsAddr != "" {
		creds := tlsCredentials(o)
		secure := grpc.NewServer(append(serverOptions, grpc.Creds(creds))...)
		discovery.Register(secure)
		out.TLSXDS = serve(o.tlsAddr, func(l net.Listener) error { return secure.Serve(l) })
		t.Cleanup(secure.Stop)
	}

	mux := http.NewServeMux()
	mux.Handle("/debug/", fake.DiscoveryDebug)
	mux.HandleFunc("/ref/push", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		discovery.ConfigUpdate(&model.PushRequest{Forced: true, Reason: model.NewReasonStats(model.DebugTrigger)})
		w.WriteHeader(http.StatusNoContent)
	})
	debugServer := &http.Server{Handler: mux}
	out.Debug = serve(o.debugAddr, func(l net.Listener) error { return debugServer.Serve(l) })
	t.Cleanup(func() { _ = debugServer.Close() })

	line, _ := json.Marshal(out)
	fmt.Println(string(line))
	waitForStop(o.stdinExit)
}

func serve(addr string, serve func(net.Listener) error) string {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fail(err.Error())
	}
	go func() { _ = serve(l) }()
	return l.Addr().String()
}

func tlsCredentials(o options) credentials.TransportCredentials {
	cert, err := tls.LoadX509KeyPair(o.certFile, o.keyFile)
	if err != nil {
		fail(err.Error())
	}
	config := &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.VerifyClientCertIfGiven,
		MinVersion:   tls.VersionTLS12,
	}
	if o.clientCA != "" {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(readFile(o.clientCA))) {
			fail("no certificate in " + o.clientCA)
		}
		config.ClientCAs = pool
	}
	return credentials.NewTLS(config)
}

func waitForStop(stdinExit bool) {
	stop := make(chan struct{}, 2)
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-signals
		stop <- struct{}{}
	}()
	if stdinExit {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop <- struct{}{}
		}()
	}
	<-stop
}
