package main

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"strconv"
	"time"

	discovery "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"github.com/envoyproxy/go-control-plane/pkg/cache/types"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// benchHandler is the benchmark-only API, the same routes as the mock's bench entry
// (bench/servers/mock-server.ts):
//
//	POST /bench/push          change one cluster; every stream is pushed the new CDS version
//	GET  /bench/stats?gc=1    heap after a full GC (Go has no event loop: eventLoop is null)
//	GET  /bench/encode?reps=N time to encode the whole CDS response once, and its size
//	POST /bench/down          close the xDS listener and every connection (the mock: POST /control/down)
//	POST /bench/up            listen again on the same address (the mock: POST /control/up)
func benchHandler(ctx context.Context, state *peerState, xds *xdsListener) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /bench/down", func(w http.ResponseWriter, _ *http.Request) {
		xds.down()
		writeJSON(w, map[string]any{"serving": false})
	})
	mux.HandleFunc("POST /bench/up", func(w http.ResponseWriter, _ *http.Request) {
		if err := xds.up(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, map[string]any{"serving": true})
	})
	mux.HandleFunc("POST /bench/push", func(w http.ResponseWriter, _ *http.Request) {
		started := time.Now()
		version, err := state.pushOne(ctx)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, map[string]any{"version": version, "ms": msSince(started)})
	})
	mux.HandleFunc("GET /bench/stats", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("gc") == "1" {
			runtime.GC()
			runtime.GC()
		}
		var mem runtime.MemStats
		runtime.ReadMemStats(&mem)
		writeJSON(w, map[string]any{
			"heapUsed":   mem.HeapAlloc,
			"heapTotal":  mem.HeapSys,
			"goroutines": runtime.NumGoroutine(),
			"eventLoop":  nil,
		})
	})
	mux.HandleFunc("GET /bench/encode", func(w http.ResponseWriter, r *http.Request) {
		reps, err := strconv.Atoi(r.URL.Query().Get("reps"))
		if err != nil || reps < 1 {
			reps = 5
		}
		ms, bytes, err := encodeClusters(state, reps)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, map[string]any{"ms": ms, "bytes": bytes})
	})
	return mux
}

// encodeClusters times what the server does for each stream it answers: marshal every
// cluster into an Any and the DiscoveryResponse around them. Returns the mean over reps.
func encodeClusters(state *peerState, reps int) (float64, int, error) {
	state.mu.Lock()
	clusters := state.set[types.Cluster]
	version := strconv.Itoa(state.versions[types.Cluster])
	state.mu.Unlock()
	started := time.Now()
	size := 0
	for range reps {
		response := &discovery.DiscoveryResponse{VersionInfo: version, TypeUrl: resourcev3.ClusterType, Nonce: "1"}
		for _, c := range clusters {
			value, err := cachev3.MarshalResource(c)
			if err != nil {
				return 0, 0, err
			}
			response.Resources = append(response.Resources, &anypb.Any{TypeUrl: resourcev3.ClusterType, Value: value})
		}
		bytes, err := proto.Marshal(response)
		if err != nil {
			return 0, 0, err
		}
		size = len(bytes)
	}
	return msSince(started) / float64(reps), size, nil
}

func msSince(t time.Time) float64 {
	return float64(time.Since(t).Microseconds()) / 1000
}

func writeJSON(w http.ResponseWriter, value any) {
	w.Header().Set("content-type", "application/json")
	_ = json.NewEncoder(w).Encode(value)
}
