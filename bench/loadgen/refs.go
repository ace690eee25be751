package main

import (
	"slices"
	"sync"

	cluster "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	listener "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	hcm "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// refCache finds the names a response makes Envoy ask for next (EDS service names of EDS
// clusters, RDS route names of listeners). Decoding thousands of clusters for each of
// thousands of clients would make the generator the bottleneck, and every client gets the
// same response for a version, so each distinct response is decoded once.
type refCache struct {
	mu      sync.Mutex
	entries map[refKey]*refEntry
}

// refKey identifies a response's content well enough for the benchmark, where every client
// gets the same responses: its type, version, size and first resource name.
type refKey struct {
	typeURL, version, first string
	count                   int
}

type refEntry struct {
	once  sync.Once
	names []string
}

func newRefCache() *refCache { return &refCache{entries: map[refKey]*refEntry{}} }

func (rc *refCache) lookup(r *reply, decode func([][]byte) []string) []string {
	first := ""
	if len(r.names) > 0 {
		first = r.names[0]
	}
	key := refKey{typeURL: r.typeURL, version: r.version, first: first, count: len(r.resources)}
	rc.mu.Lock()
	entry := rc.entries[key]
	if entry == nil {
		entry = &refEntry{}
		rc.entries[key] = entry
	}
	rc.mu.Unlock()
	entry.once.Do(func() { entry.names = decode(r.resources) })
	return entry.names
}

func (rc *refCache) edsNames(r *reply) []string { return rc.lookup(r, edsServiceNames) }

func (rc *refCache) rdsNames(r *reply) []string { return rc.lookup(r, routeConfigNames) }

// decodeAny unpacks an encoded Any into m; false if it holds something else.
func decodeAny(encoded []byte, m proto.Message) bool {
	var packed anypb.Any
	return proto.Unmarshal(encoded, &packed) == nil && packed.UnmarshalTo(m) == nil
}

func edsServiceNames(resources [][]byte) []string {
	var names []string
	for _, resource := range resources {
		var c cluster.Cluster
		if !decodeAny(resource, &c) || c.GetType() != cluster.Cluster_EDS {
			continue
		}
		name := c.GetEdsClusterConfig().GetServiceName()
		if name == "" {
			name = c.GetName()
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func routeConfigNames(resources [][]byte) []string {
	var names []string
	for _, resource := range resources {
		var l listener.Listener
		if !decodeAny(resource, &l) {
			continue
		}
		for _, chain := range l.GetFilterChains() {
			for _, filter := range chain.GetFilters() {
				var manager hcm.HttpConnectionManager
				if filter.GetTypedConfig().UnmarshalTo(&manager) != nil {
					continue
				}
				if name := manager.GetRds().GetRouteConfigName(); name != "" {
					names = append(names, name)
				}
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
