// Command lab-app is the seed lab's application as a small static program, for the cluster's
// lab-app image (scripts/build-cluster-images.sh, docs/cluster-images.md): the same answers as
// scripts/lab-upstream.ts, plus a client, because a scratch image has no curl.
//
//	lab-app [serve] [--mode ok|fail|slow] [--port 8080] [--host 0.0.0.0] [--slow-ms 2000]
//	lab-app [serve] <port> <mode>          (the lab's positional form)
//	lab-app fetch [--timeout 10s] [-H 'Name: value']... <url>
//
// serve answers every request with the body `<mode>:<port> <path>` (e.g. `ok:8080 /x`): `ok`
// with 200, `fail` with 500, `slow` with 200 after --slow-ms. It listens on every interface by
// default (in a pod the sidecar forwards inbound traffic to the pod's address, not loopback),
// logs one line when it listens and exits 0 on SIGTERM or SIGINT.
//
// fetch sends one GET and prints the status code on the first line and the body after it. It
// exits 0 when an answer came (whatever its status), 1 when none did (the error on stderr),
// 2 for a usage mistake. `kubectl exec <pod> -c app -- lab-app fetch http://orders:8080/x`
// is the cluster tests' client.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "fetch" {
		os.Exit(fetch(args[1:]))
	}
	if len(args) > 0 && args[0] == "serve" {
		args = args[1:]
	}
	os.Exit(serve(args))
}

// usageError prints one line and returns the usage exit code.
func usageError(format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "lab-app: "+format+"\n", a...)
	return 2
}

var statusOf = map[string]int{"ok": http.StatusOK, "fail": http.StatusInternalServerError, "slow": http.StatusOK}

type serveOptions struct {
	mode   string
	port   int
	host   string
	slowMs int
}

func parseServe(args []string) (serveOptions, error) {
	flags := flag.NewFlagSet("serve", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	mode := flags.String("mode", "ok", "ok, fail or slow")
	port := flags.Int("port", 8080, "port to listen on (0 chooses a free one)")
	host := flags.String("host", "0.0.0.0", "address to listen on")
	slowMs := flags.Int("slow-ms", 2000, "delay before a slow answer, in milliseconds")
	rest, err := parseInterspersed(flags, args)
	if err != nil {
		return serveOptions{}, err
	}
	given := map[string]bool{}
	flags.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if len(rest) > 2 {
		return serveOptions{}, fmt.Errorf("unexpected argument '%s' (usage: lab-app [serve] [<port> <mode>])", rest[2])
	}
	if len(rest) > 0 {
		if given["port"] {
			return serveOptions{}, fmt.Errorf("the port is given twice: --port and '%s'", rest[0])
		}
		p, err := strconv.Atoi(rest[0])
		if err != nil {
			return serveOptions{}, fmt.Errorf("port must be an integer from 0 to 65535, got '%s'", rest[0])
		}
		*port = p
	}
	if len(rest) > 1 {
		if given["mode"] {
			return serveOptions{}, fmt.Errorf("the mode is given twice: --mode and '%s'", rest[1])
		}
		*mode = rest[1]
	}
	if _, known := statusOf[*mode]; !known {
		return serveOptions{}, fmt.Errorf("mode must be one of ok, fail, slow, got '%s'", *mode)
	}
	if *port < 0 || *port > 65535 {
		return serveOptions{}, fmt.Errorf("port must be an integer from 0 to 65535, got %d", *port)
	}
	if *slowMs < 0 {
		return serveOptions{}, fmt.Errorf("slow-ms must be a non-negative integer, got %d", *slowMs)
	}
	return serveOptions{mode: *mode, port: *port, host: *host, slowMs: *slowMs}, nil
}

// parseInterspersed parses flags before, between and after positional arguments (Go's flag
// package stops at the first positional one); it returns the positional ones.
func parseInterspersed(flags *flag.FlagSet, args []string) ([]string, error) {
	var positionals []string
	for {
		if err := flags.Parse(args); err != nil {
			return nil, err
		}
		args = flags.Args()
		if len(args) == 0 {
			return positionals, nil
		}
		positionals = append(positionals, args[0])
		args = args[1:]
	}
}

func serve(args []string) int {
	opts, err := parseServe(args)
	if err != nil {
		return usageError("%v", err)
	}
	listener, err := net.Listen("tcp", net.JoinHostPort(opts.host, strconv.Itoa(opts.port)))
	if err != nil {
		fmt.Fprintf(os.Stderr, "lab-app: %v\n", err)
		return 1
	}
	bound := listener.Addr().(*net.TCPAddr).Port
	server := &http.Server{Handler: answer(opts, bound), ReadHeaderTimeout: 10 * time.Second}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		// Pending slow answers are dropped, as lab-upstream.ts drops them.
		_ = server.Close()
	}()
	fmt.Printf("lab app (%s) listening on http://%s\n", opts.mode, listener.Addr())
	if err := server.Serve(listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(os.Stderr, "lab-app: %v\n", err)
		return 1
	}
	return 0
}

// answer is lab-upstream.ts's handler: `<mode>:<port> <path>`, the path as the request gave
// it (query included).
func answer(opts serveOptions, port int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if opts.mode == "slow" {
			select {
			case <-time.After(time.Duration(opts.slowMs) * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("content-type", "text/plain; charset=utf-8")
		w.WriteHeader(statusOf[opts.mode])
		fmt.Fprintf(w, "%s:%d %s", opts.mode, port, r.RequestURI)
	})
}

type headerList []string

func (h *headerList) String() string     { return strings.Join(*h, ", ") }
func (h *headerList) Set(v string) error { *h = append(*h, v); return nil }

func fetch(args []string) int {
	flags := flag.NewFlagSet("fetch", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	timeout := flags.Duration("timeout", 10*time.Second, "give up after this long")
	var headers headerList
	flags.Var(&headers, "H", "a request header 'Name: value' (repeatable)")
	urls, err := parseInterspersed(flags, args)
	if err != nil {
		return usageError("fetch: %v (usage: lab-app fetch [--timeout 10s] [-H 'Name: value'] <url>)", err)
	}
	if len(urls) != 1 {
		return usageError("fetch needs exactly one URL (usage: lab-app fetch [--timeout 10s] [-H 'Name: value'] <url>)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, urls[0], nil)
	if err != nil {
		return usageError("fetch: %v", err)
	}
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			return usageError("fetch: -H must be 'Name: value', got '%s'", h)
		}
		if strings.EqualFold(strings.TrimSpace(name), "host") {
			req.Host = strings.TrimSpace(value)
		} else {
			req.Header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(os.Stderr, "lab-app: fetch: %v\n", err)
		return 1
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	fmt.Printf("%d\n%s\n", res.StatusCode, body)
	if err != nil {
		fmt.Fprintf(os.Stderr, "lab-app: fetch: reading the body: %v\n", err)
		return 1
	}
	return 0
}
