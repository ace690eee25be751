package main

import (
	"context"
	"fmt"

	core "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	discovery "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

const adsService = "/envoy.service.discovery.v3.AggregatedDiscoveryService/"

// reply is a response of either protocol, reduced to what the client acts on. Resources
// stay encoded (`Any` bytes): only the EDS/RDS name lookup ever decodes them.
type reply struct {
	typeURL   string
	version   string
	nonce     string
	resources [][]byte
	// names of the resources (delta responses carry them; SotW ones do not).
	names []string
}

// adsStream hides the difference between SotW and delta requests.
type adsStream interface {
	subscribe(typeURL string, names []string) error
	ack(r *reply, names []string) error
	recv() (*reply, error)
	close() error
}

func openStream(ctx context.Context, o options, node *core.Node) (adsStream, error) {
	method := "StreamAggregatedResources"
	if o.mode == "delta" {
		method = "DeltaAggregatedResources"
	}
	s, err := dialGRPC(ctx, o.target, adsService+method, uint32(o.window), o.backoff)
	if err != nil {
		return nil, err
	}
	if o.mode == "delta" {
		return &deltaStream{s: s, node: node}, nil
	}
	return &sotwStream{s: s, node: node, last: map[string]*reply{}}, nil
}

// nodeFor builds an Istio-like sidecar node: `sidecar~<ip>~<pod>.<ns>~<ns>.svc.cluster.local`
// with the metadata pilot-agent sends (a few hundred bytes; real ones carry more labels).
func nodeFor(id int, namespace string) *core.Node {
	ip := fmt.Sprintf("10.%d.%d.%d", (id>>16)&255, (id>>8)&255, id&255)
	pod := fmt.Sprintf("pod-%d", id)
	metadata, _ := structpb.NewStruct(map[string]any{
		"CLUSTER_ID":      "Kubernetes",
		"ISTIO_VERSION":   "1.28.0",
		"MESH_ID":         "cluster.local",
		"NAME":            pod,
		"NAMESPACE":       namespace,
		"INSTANCE_IPS":    ip,
		"SERVICE_ACCOUNT": "default",
		"WORKLOAD_NAME":   "bench",
		"LABELS":          map[string]any{"app": "bench", "version": "v1"},
	})
	return &core.Node{
		Id:            fmt.Sprintf("sidecar~%s~%s.%s~%s.svc.cluster.local", ip, pod, namespace, namespace),
		Cluster:       "bench." + namespace,
		Metadata:      metadata,
		UserAgentName: "envoy",
	}
}

func sendProto(s *grpcStream, m proto.Message) error {
	payload, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	return s.send(payload)
}

// sotwStream: every request carries the type's names, the last accepted version and the
// last nonce; the node goes on the first request only (set_node_on_first_message_only).
type sotwStream struct {
	s        *grpcStream
	node     *core.Node
	nodeSent bool
	last     map[string]*reply
	buf      []byte
}

func (x *sotwStream) send(req *discovery.DiscoveryRequest) error {
	if !x.nodeSent {
		req.Node = x.node
		x.nodeSent = true
	}
	return sendProto(x.s, req)
}

func (x *sotwStream) subscribe(typeURL string, names []string) error {
	req := &discovery.DiscoveryRequest{TypeUrl: typeURL, ResourceNames: names}
	if last := x.last[typeURL]; last != nil {
		req.VersionInfo, req.ResponseNonce = last.version, last.nonce
	}
	return x.send(req)
}

func (x *sotwStream) ack(r *reply, names []string) error {
	x.last[r.typeURL] = &reply{version: r.version, nonce: r.nonce}
	if !x.nodeSent {
		return x.send(&discovery.DiscoveryRequest{
			TypeUrl: r.typeURL, VersionInfo: r.version, ResponseNonce: r.nonce, ResourceNames: names,
		})
	}
	// An ACK is the hottest message the generator sends: encoded by hand into a reused
	// buffer (DiscoveryRequest: version_info 1, resource_names 3, type_url 4, response_nonce 5).
	b := x.buf[:0]
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, r.version)
	for _, name := range names {
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		b = protowire.AppendString(b, name)
	}
	b = protowire.AppendTag(b, 4, protowire.BytesType)
	b = protowire.AppendString(b, r.typeURL)
	b = protowire.AppendTag(b, 5, protowire.BytesType)
	b = protowire.AppendString(b, r.nonce)
	x.buf = b
	return x.s.send(b)
}

// recv decodes a DiscoveryResponse's version_info (1), resources (2), type_url (4), nonce (5).
func (x *sotwStream) recv() (*reply, error) {
	message, err := x.s.recv()
	if err != nil {
		return nil, err
	}
	r := &reply{}
	err = eachField(message, func(num protowire.Number, value []byte) {
		switch num {
		case 1:
			r.version = string(value)
		case 2:
			r.resources = append(r.resources, value)
		case 4:
			r.typeURL = string(value)
		case 5:
			r.nonce = string(value)
		}
	})
	return r, err
}

func (x *sotwStream) close() error { return x.s.close() }

// deltaStream: subscriptions change by difference; an ACK is the type and the nonce.
type deltaStream struct {
	s        *grpcStream
	node     *core.Node
	nodeSent bool
	asked    map[string]map[string]bool
	buf      []byte
}

func (x *deltaStream) send(req *discovery.DeltaDiscoveryRequest) error {
	if !x.nodeSent {
		req.Node = x.node
		x.nodeSent = true
	}
	return sendProto(x.s, req)
}

func (x *deltaStream) subscribe(typeURL string, names []string) error {
	if x.asked == nil {
		x.asked = map[string]map[string]bool{}
	}
	asked := x.asked[typeURL]
	if asked == nil {
		asked = map[string]bool{}
		x.asked[typeURL] = asked
	}
	var added []string
	for _, name := range names {
		if !asked[name] {
			asked[name] = true
			added = append(added, name)
		}
	}
	return x.send(&discovery.DeltaDiscoveryRequest{TypeUrl: typeURL, ResourceNamesSubscribe: added})
}

func (x *deltaStream) ack(r *reply, _ []string) error {
	if !x.nodeSent {
		return x.send(&discovery.DeltaDiscoveryRequest{TypeUrl: r.typeURL, ResponseNonce: r.nonce})
	}
	// DeltaDiscoveryRequest: type_url 2, response_nonce 6.
	b := x.buf[:0]
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendString(b, r.typeURL)
	b = protowire.AppendTag(b, 6, protowire.BytesType)
	b = protowire.AppendString(b, r.nonce)
	x.buf = b
	return x.s.send(b)
}

// recv decodes a DeltaDiscoveryResponse's system_version_info (1), resources (2: Resource
// with name 3 and the Any 2), type_url (4) and nonce (5).
func (x *deltaStream) recv() (*reply, error) {
	message, err := x.s.recv()
	if err != nil {
		return nil, err
	}
	r := &reply{}
	err = eachField(message, func(num protowire.Number, value []byte) {
		switch num {
		case 1:
			r.version = string(value)
		case 2:
			var name string
			var resource []byte
			_ = eachField(value, func(n protowire.Number, v []byte) {
				if n == 3 {
					name = string(v)
				} else if n == 2 {
					resource = v
				}
			})
			r.names = append(r.names, name)
			r.resources = append(r.resources, resource)
		case 4:
			r.typeURL = string(value)
		case 5:
			r.nonce = string(value)
		}
	})
	return r, err
}

func (x *deltaStream) close() error { return x.s.close() }

// eachField calls fn with every length-delimited field of a protobuf message (the only kind
// the responses' fields of interest are); other wire types are skipped.
func eachField(message []byte, fn func(protowire.Number, []byte)) error {
	for len(message) > 0 {
		num, typ, n := protowire.ConsumeTag(message)
		if n < 0 {
			return protowire.ParseError(n)
		}
		message = message[n:]
		if typ == protowire.BytesType {
			value, m := protowire.ConsumeBytes(message)
			if m < 0 {
				return protowire.ParseError(m)
			}
			fn(num, value)
			message = message[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, message)
		if m < 0 {
			return protowire.ParseError(m)
		}
		message = message[m:]
	}
	return nil
}
