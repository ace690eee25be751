package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	cluster "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	"github.com/envoyproxy/go-control-plane/pkg/cache/types"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"

	// The message types the resource set names in `@type`, registered for protojson.
	_ "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
)

// resourceSet is the resources of each xDS type, in file order.
type resourceSet map[types.ResponseType][]types.Resource

// loadResourceSet reads a JSON array of resources, each with its `@type`, exactly as the
// harness gives the mock.
func loadResourceSet(path string) (resourceSet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: expected a JSON array of resources: %w", path, err)
	}
	set := resourceSet{}
	for i, item := range raw {
		var packed anypb.Any
		if err := protojson.Unmarshal(item, &packed); err != nil {
			return nil, fmt.Errorf("%s: resource %d: %w", path, i, err)
		}
		message, err := packed.UnmarshalNew()
		if err != nil {
			return nil, fmt.Errorf("%s: resource %d: %w", path, i, err)
		}
		kind := cachev3.GetResponseType(packed.GetTypeUrl())
		if kind == types.UnknownType {
			return nil, fmt.Errorf("%s: resource %d: not an xDS resource type: %s", path, i, packed.GetTypeUrl())
		}
		set[kind] = append(set[kind], message)
	}
	return set, nil
}

// peerState is the current resource set with a version per type: a push bumps only the
// version of the type that changed, as the mock does, so that only that type is pushed.
type peerState struct {
	mu       sync.Mutex
	cache    cachev3.SnapshotCache
	set      resourceSet
	versions map[types.ResponseType]int
	pushes   int
}

func newPeerState(cache cachev3.SnapshotCache, set resourceSet) *peerState {
	versions := map[types.ResponseType]int{}
	for kind := range set {
		versions[kind] = 1
	}
	return &peerState{cache: cache, set: set, versions: versions}
}

// publish builds a snapshot of the current set and installs it (the cache pushes it).
func (p *peerState) publish(ctx context.Context) error {
	snapshot := &cachev3.Snapshot{}
	for kind, items := range p.set {
		snapshot.Resources[kind] = cachev3.NewResources(strconv.Itoa(p.versions[kind]), items)
	}
	if err := snapshot.Consistent(); err != nil {
		return fmt.Errorf("inconsistent snapshot: %w", err)
	}
	return p.cache.SetSnapshot(ctx, snapshotKey, snapshot)
}

// pushOne changes one resource (the first cluster's connect_timeout, as the mock's bench entry
// does) and publishes; returns the new cluster version.
func (p *peerState) pushOne(ctx context.Context) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	clusters := p.set[types.Cluster]
	if len(clusters) == 0 {
		return "", fmt.Errorf("the resource set has no cluster to change")
	}
	p.pushes++
	changed := proto.Clone(clusters[0]).(*cluster.Cluster)
	changed.ConnectTimeout = durationpb.New(10*time.Second + time.Duration(p.pushes)*time.Millisecond)
	next := append([]types.Resource{changed}, clusters[1:]...)
	p.set[types.Cluster] = next
	p.versions[types.Cluster]++
	if err := p.publish(ctx); err != nil {
		return "", err
	}
	return strconv.Itoa(p.versions[types.Cluster]), nil
}
