// Command loadgen plays many Envoy sidecars at once against one ADS server, in a process of
// its own so that the clients do not share the server's CPU time slice or event loop.
//
// It is driven by the benchmark harness (bench/run.ts) over stdin/stdout, one JSON object per
// line. Commands:
//
//	{"cmd":"connect","n":1000,"timeoutMs":60000}   open n more streams; reply when every one
//	                                               has ACKed its initial config (or timeout)
//	{"cmd":"push","url":"http://…/bench/push","timeoutMs":30000}
//	                                               trigger a push and time every stream's ACK
//	{"cmd":"stall","n":1}                          n streams stop reading
//	{"cmd":"drop","url":"http://…/control/down","timeoutMs":30000}
//	                                               take the server down (POST url) and wait
//	                                               until every stream has ended
//	{"cmd":"rejoin","url":"http://…/control/up","timeoutMs":60000}
//	                                               bring it up (POST url) and time until every
//	                                               stream has reconnected and ACKed its
//	                                               initial config again (needs -reconnect)
//	{"cmd":"quit"}                                 close everything and exit
//
// Each reply is one JSON line whose "event" names the command it answers.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"time"
)

type options struct {
	target          string
	mode            string
	window          int
	dialConcurrency int
	namespace       string
	// reconnect: a stream that ends is opened again after a jittered wait, as Envoy does.
	reconnect  bool
	backoffMin time.Duration
	backoffMax time.Duration
	// backoff is the wait before the next connection attempt: a fixed 50 ms without
	// -reconnect (a ramp's refused dials), jittered in [backoffMin, backoffMax) with it.
	backoff func() time.Duration
}

type command struct {
	Cmd       string `json:"cmd"`
	N         int    `json:"n"`
	URL       string `json:"url"`
	TimeoutMs int    `json:"timeoutMs"`
}

func main() {
	var o options
	flag.StringVar(&o.target, "target", "", "ADS server host:port (required)")
	flag.StringVar(&o.mode, "mode", "sotw", "sotw (StreamAggregatedResources) or delta (DeltaAggregatedResources)")
	flag.IntVar(&o.window, "window", 1<<20, "HTTP/2 stream and connection window in bytes (fixed: no BDP growth)")
	flag.IntVar(&o.dialConcurrency, "dial-concurrency", 500, "streams connecting at once during a ramp")
	flag.StringVar(&o.namespace, "namespace", "bench", "namespace in the simulated node ids")
	flag.BoolVar(&o.reconnect, "reconnect", false, "open a stream again after it ends, after a jittered wait (-backoff-min-ms to -backoff-max-ms), as Envoy does")
	backoffMin := flag.Int("backoff-min-ms", 50, "with -reconnect: the shortest wait before a reconnect or a redial")
	backoffMax := flag.Int("backoff-max-ms", 500, "with -reconnect: the longest wait before a reconnect or a redial")
	cpuProfile := flag.String("cpuprofile", "", "write a Go CPU profile of the whole run to this file")
	flag.Parse()
	if o.target == "" || (o.mode != "sotw" && o.mode != "delta") || o.window < 65535 || o.dialConcurrency < 1 {
		fmt.Fprintln(os.Stderr, "loadgen: --target host:port is required; --mode is sotw or delta; --window >= 65535; --dial-concurrency >= 1")
		os.Exit(2)
	}
	if *backoffMin < 1 || *backoffMax < *backoffMin {
		fmt.Fprintln(os.Stderr, "loadgen: --backoff-min-ms >= 1 and --backoff-max-ms >= --backoff-min-ms")
		os.Exit(2)
	}
	o.backoffMin = time.Duration(*backoffMin) * time.Millisecond
	o.backoffMax = time.Duration(*backoffMax) * time.Millisecond
	stopProfile := func() {}
	if *cpuProfile != "" {
		stop, err := startProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(2)
		}
		stopProfile = stop
	}
	defer stopProfile()
	// The generator allocates little and has memory to spare: collect garbage less often.
	debug.SetGCPercent(400)
	lg := newLoadgen(o)
	out := json.NewEncoder(os.Stdout)
	scanner := bufio.NewScanner(os.Stdin)
	for scanner.Scan() {
		var c command
		if err := json.Unmarshal(scanner.Bytes(), &c); err != nil {
			_ = out.Encode(map[string]any{"event": "error", "error": "bad command: " + err.Error()})
			continue
		}
		timeout := time.Duration(c.TimeoutMs) * time.Millisecond
		if timeout <= 0 {
			timeout = time.Minute
		}
		switch c.Cmd {
		case "connect":
			_ = out.Encode(lg.connect(c.N, timeout))
		case "push":
			_ = out.Encode(lg.push(c.URL, timeout))
		case "stall":
			_ = out.Encode(lg.stall(c.N))
		case "drop":
			_ = out.Encode(lg.drop(c.URL, timeout))
		case "rejoin":
			_ = out.Encode(lg.rejoin(c.URL, timeout))
		case "quit":
			lg.close()
			stopProfile()
			_ = out.Encode(map[string]any{"event": "quit"})
			return
		default:
			_ = out.Encode(map[string]any{"event": "error", "error": "unknown command: " + c.Cmd})
		}
	}
	lg.close()
}
