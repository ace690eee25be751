// A control-API client written the way a Go user writes one: one http.Client with Go's
// default transport (keep-alive on, idle connections kept 90 s), requests one after another
// with pauses between some of them. It counts every request that fails (a transport error
// such as EOF or a reset, or an unexpected status) and prints one JSON line of figures.
//
// Usage: go-control-client -url http://127.0.0.1:15014 -token T -requests 300 -pauses 5.1s,5.3s
//
// The pauses are spread over the run: after request i*N/len(pauses) it sleeps pauses[i], so
// that the next request reuses a connection that has been idle that long.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

type figures struct {
	Requests    int      `json:"requests"`
	Failures    int      `json:"failures"`
	Errors      []string `json:"errors"`
	Pauses      int      `json:"pauses"`
	NewConns    int      `json:"newConnections"`
	ElapsedMs   int64    `json:"elapsedMs"`
	LastVersion string   `json:"lastVersion"`
}

func main() {
	base := flag.String("url", "", "the control API, http://host:port")
	token := flag.String("token", "", "the control token")
	requests := flag.Int("requests", 300, "how many requests")
	pauseList := flag.String("pauses", "", "comma-separated pauses (Go durations)")
	flag.Parse()
	if *base == "" {
		fmt.Fprintln(os.Stderr, "go-control-client: -url is required")
		os.Exit(2)
	}
	var pauses []time.Duration
	for _, p := range strings.Split(*pauseList, ",") {
		if p == "" {
			continue
		}
		d, err := time.ParseDuration(p)
		if err != nil {
			fmt.Fprintf(os.Stderr, "go-control-client: -pauses: %v\n", err)
			os.Exit(2)
		}
		pauses = append(pauses, d)
	}
	// Go's default client: http.DefaultTransport (IdleConnTimeout 90 s, keep-alive on).
	client := &http.Client{Timeout: 10 * time.Second}
	out := figures{Errors: []string{}}
	start := time.Now()
	pauseAt := map[int]time.Duration{}
	for i, d := range pauses {
		pauseAt[(i+1)**requests/(len(pauses)+1)] = d
	}
	for i := 0; i < *requests; i++ {
		if d, ok := pauseAt[i]; ok {
			time.Sleep(d)
			out.Pauses++
		}
		err, fresh := one(client, *base, *token, i, &out)
		out.Requests++
		if fresh {
			out.NewConns++
		}
		if err != nil {
			out.Failures++
			if len(out.Errors) < 20 {
				out.Errors = append(out.Errors, fmt.Sprintf("request %d: %v", i, err))
			}
		}
	}
	out.ElapsedMs = time.Since(start).Milliseconds()
	json.NewEncoder(os.Stdout).Encode(out)
}

// one sends request i: a PUT of the resources (a change Go will not retry), a GET of the
// state, or a push, in turn. It reports whether the request needed a new connection.
func one(client *http.Client, base, token string, i int, out *figures) (error, bool) {
	var req *http.Request
	var err error
	switch i % 3 {
	case 0:
		body := fmt.Sprintf(`{"resources":[{"@type":"type.googleapis.com/envoy.config.cluster.v3.Cluster","name":"go-%d","type":"STATIC","connect_timeout":"1s"}]}`, i)
		req, err = http.NewRequest(http.MethodPut, base+"/control/resources", bytes.NewBufferString(body))
		if err == nil {
			req.Header.Set("content-type", "application/json")
		}
	case 1:
		req, err = http.NewRequest(http.MethodGet, base+"/control/state", nil)
	default:
		req, err = http.NewRequest(http.MethodPost, base+"/control/push", bytes.NewBufferString(`{"types":["CDS"]}`))
	}
	if err != nil {
		return err, false
	}
	if token != "" {
		req.Header.Set("authorization", "Bearer "+token)
	}
	fresh := false
	req = req.WithContext(withConnTrace(req.Context(), &fresh))
	res, err := client.Do(req)
	if err != nil {
		return err, fresh
	}
	defer res.Body.Close()
	text, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("reading the answer: %w", err), fresh
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s answered %d: %s", req.Method, req.URL.Path, res.StatusCode, text), fresh
	}
	if i%3 == 0 {
		var changed struct {
			Version string `json:"version"`
		}
		if err := json.Unmarshal(text, &changed); err != nil || changed.Version == "" {
			return fmt.Errorf("PUT answered no version: %s", text), fresh
		}
		out.LastVersion = changed.Version
	}
	return nil, fresh
}
