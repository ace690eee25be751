package main

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

const (
	clusterType  = "type.googleapis.com/envoy.config.cluster.v3.Cluster"
	endpointType = "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment"
	listenerType = "type.googleapis.com/envoy.config.listener.v3.Listener"
	routeType    = "type.googleapis.com/envoy.config.route.v3.RouteConfiguration"
)

// client is one simulated sidecar: one connection and one ADS stream, like an Envoy.
type client struct {
	id      int
	lg      *loadgen
	alive   atomic.Bool
	stalled atomic.Bool
	// ends counts the streams of this client that ended (with -reconnect, it opens another).
	ends   atomic.Int64
	connMu sync.Mutex
	stream adsStream
	// pushSeq and rejoinSeq are the last push and rejoin rounds this client reported
	// (touched by its goroutine only).
	pushSeq   int64
	rejoinSeq int64
}

func newClient(lg *loadgen, id int) *client {
	return &client{id: id, lg: lg}
}

// flow is what the client does, protocol-neutral: subscribe CDS, then EDS for the EDS
// clusters it was sent, then LDS, then RDS for the route names its listeners use; ACK
// every response, as Envoy does.
type flow struct {
	requested map[string][]string
	acked     map[string]bool
}

// run connects, follows the flow and reports its ramp result once; then keeps reading (and
// ACKing pushes) until the stream ends or the client is told to stall.
func (c *client) run(sem chan struct{}, results chan<- rampResult) {
	sem <- struct{}{}
	released := false
	release := func() {
		if !released {
			released = true
			<-sem
		}
	}
	defer release()
	started := time.Now()
	reported := false
	report := func(r rampResult) {
		if !reported {
			reported = true
			results <- r
		}
	}
	done := func(r rampResult) { release(); report(r) }
	err := c.serve(started, done, release)
	c.alive.Store(false)
	if !c.lg.o.reconnect {
		if err != nil && c.lg.ctx.Err() == nil {
			c.lg.errs.add(fmt.Errorf("client %d: %w", c.id, err))
			report(rampResult{err: err})
		}
		return
	}
	// -reconnect: as Envoy does when its xDS stream ends, wait a jittered backoff and open
	// a new connection and stream, which fetches and ACKs the whole config again.
	release()
	for c.lg.ctx.Err() == nil && !c.stalled.Load() {
		if err != nil {
			c.lg.drops.add(fmt.Errorf("client %d: %w", c.id, err))
		}
		c.ends.Add(1)
		select {
		case <-c.lg.ctx.Done():
			return
		case <-time.After(c.lg.o.backoff()):
		}
		err = c.serve(time.Now(), done, func() {})
		c.alive.Store(false)
	}
}

func (c *client) serve(started time.Time, done func(rampResult), firstResponse func()) error {
	stream, err := openStream(c.lg.ctx, c.lg.o, nodeFor(c.id, c.lg.o.namespace))
	if err != nil {
		if c.lg.ctx.Err() != nil {
			return nil
		}
		return err
	}
	connectedAt := time.Now()
	c.connMu.Lock()
	c.stream = stream
	c.connMu.Unlock()
	defer c.closeConn()
	c.alive.Store(true)
	f := flow{requested: map[string][]string{}, acked: map[string]bool{}}
	if err := c.subscribe(stream, &f, clusterType, nil); err != nil {
		return err
	}
	var first time.Duration
	initDone := false
	for {
		if c.stalled.Load() {
			// A slow consumer: the stream stays open, nothing is read any more.
			<-c.lg.ctx.Done()
			return nil
		}
		r, err := stream.recv()
		if err != nil {
			return err
		}
		at := time.Now()
		c.lg.responses.Add(1)
		if first == 0 {
			first = at.Sub(started)
			firstResponse()
		}
		if err := c.handle(stream, &f, r); err != nil {
			return err
		}
		if r.typeURL == clusterType {
			c.reportPush(at)
		}
		if !initDone && f.complete() {
			initDone = true
			done(rampResult{firstResponse: first, initAcked: time.Since(started), doneAt: time.Now()})
			c.reportRejoin(connectedAt)
		}
	}
}

// handle ACKs a response and makes the requests that follow from it.
func (c *client) handle(stream adsStream, f *flow, r *reply) error {
	if err := stream.ack(r, f.requested[r.typeURL]); err != nil {
		return err
	}
	f.acked[r.typeURL] = true
	switch r.typeURL {
	case clusterType:
		names := c.lg.refs.edsNames(r)
		if len(names) > 0 {
			return c.resubscribe(stream, f, endpointType, names)
		}
		return c.subscribeOnce(stream, f, listenerType)
	case endpointType:
		return c.subscribeOnce(stream, f, listenerType)
	case listenerType:
		if names := c.lg.refs.rdsNames(r); len(names) > 0 {
			return c.resubscribe(stream, f, routeType, names)
		}
	}
	return nil
}

func (c *client) subscribe(stream adsStream, f *flow, typeURL string, names []string) error {
	f.requested[typeURL] = names
	return stream.subscribe(typeURL, names)
}

func (c *client) subscribeOnce(stream adsStream, f *flow, typeURL string) error {
	if _, ok := f.requested[typeURL]; ok {
		return nil
	}
	return c.subscribe(stream, f, typeURL, nil)
}

// resubscribe adds names to a subscription when some are new (the benchmark never removes
// clusters or listeners, so subscriptions only grow).
func (c *client) resubscribe(stream adsStream, f *flow, typeURL string, names []string) error {
	before, ok := f.requested[typeURL]
	if ok && !slices.ContainsFunc(names, func(n string) bool { return !slices.Contains(before, n) }) {
		return nil
	}
	merged := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(before), names...))))
	f.acked[typeURL] = false
	return c.subscribe(stream, f, typeURL, merged)
}

// complete: CDS and LDS ACKed, and EDS and RDS too when they were asked for.
func (f *flow) complete() bool {
	for typeURL := range f.requested {
		if !f.acked[typeURL] {
			return false
		}
	}
	_, lds := f.requested[listenerType]
	return lds
}

// reportPush counts this client's ACK of a CDS response received after a push was triggered.
func (c *client) reportPush(receivedAt time.Time) {
	round := c.lg.round.Load()
	if round == nil || c.stalled.Load() || c.pushSeq == round.seq || receivedAt.Before(round.t0) {
		return
	}
	c.pushSeq = round.seq
	round.record(time.Now())
}

// reportRejoin counts this client's initial config ACKed again after a rejoin began, on a
// stream connected at connectedAt.
func (c *client) reportRejoin(connectedAt time.Time) {
	round := c.lg.rejoinRound.Load()
	if round == nil || c.rejoinSeq == round.seq {
		return
	}
	c.rejoinSeq = round.seq
	round.recordServed(time.Now(), connectedAt)
}

func (c *client) closeConn() {
	c.connMu.Lock()
	defer c.connMu.Unlock()
	if c.stream != nil {
		_ = c.stream.close()
	}
}
