package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// loadgen owns every simulated client and answers the harness's commands.
type loadgen struct {
	o       options
	refs    *refCache
	ctx     context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex
	clients []*client
	errs    errorLog
	round   atomic.Pointer[pushRound]
	seq     atomic.Int64
	// With -reconnect: the rejoin being timed, the streams that ended (and the first few
	// reasons), and the connection attempts that waited a backoff (refused or reset).
	rejoinRound atomic.Pointer[pushRound]
	drops       errorLog
	redials     atomic.Int64
	// Every response received, of any type, on any stream: a push's count is the difference
	// between its trigger's reading and the next push's.
	responses atomic.Int64
}

func newLoadgen(o options) *loadgen {
	ctx, cancel := context.WithCancel(context.Background())
	lg := &loadgen{o: o, refs: newRefCache(), ctx: ctx, cancel: cancel}
	lg.o.backoff = func() time.Duration {
		lg.redials.Add(1)
		if !o.reconnect {
			return 50 * time.Millisecond
		}
		return o.backoffMin + rand.N(o.backoffMax-o.backoffMin+1)
	}
	return lg
}

// rampResult is what one client reports once its initial config is ACKed (or it failed).
type rampResult struct {
	firstResponse time.Duration
	initAcked     time.Duration
	doneAt        time.Time
	err           error
}

// connect opens n more streams, at most dialConcurrency connecting at once, and waits until
// each has ACKed its initial config or failed.
func (lg *loadgen) connect(n int, timeout time.Duration) map[string]any {
	started := time.Now()
	results := make(chan rampResult, n)
	sem := make(chan struct{}, lg.o.dialConcurrency)
	lg.mu.Lock()
	base := len(lg.clients)
	for i := range n {
		c := newClient(lg, base+i)
		lg.clients = append(lg.clients, c)
		go c.run(sem, results)
	}
	lg.mu.Unlock()

	first, acked := make([]float64, 0, n), make([]float64, 0, n)
	var last time.Time
	failed := 0
	deadline := time.After(timeout)
collect:
	for range n {
		select {
		case r := <-results:
			if r.err != nil {
				failed++
				continue
			}
			first = append(first, ms(r.firstResponse))
			acked = append(acked, ms(r.initAcked))
			if r.doneAt.After(last) {
				last = r.doneAt
			}
		case <-deadline:
			break collect
		}
	}
	complete := len(acked) == n
	reply := map[string]any{
		"event":         "connect",
		"requested":     n,
		"acked":         len(acked),
		"failed":        failed,
		"timedOut":      !complete && len(acked)+failed < n,
		"total":         lg.alive(),
		"firstResponse": summarize(first),
		"initAcked":     summarize(acked),
		"errors":        lg.errs.snapshot(),
	}
	if complete {
		reply["allAckedMs"] = ms(last.Sub(started))
	}
	return reply
}

// pushRound collects, for one push, the time until each reading stream ACKed the new CDS.
type pushRound struct {
	seq       int64
	t0        time.Time
	mu        sync.Mutex
	latencies []float64
	served    []float64
	expected  int
	done      chan struct{}
}

func (r *pushRound) record(at time.Time) { r.recordServed(at, time.Time{}) }

// recordServed also keeps, for a rejoin, the time from the stream's connection (after any
// backoff) until its ACK: the part of the wait the server is responsible for.
func (r *pushRound) recordServed(at, connectedAt time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !connectedAt.IsZero() {
		r.served = append(r.served, ms(at.Sub(connectedAt)))
	}
	r.latencies = append(r.latencies, ms(at.Sub(r.t0)))
	if len(r.latencies) == r.expected {
		close(r.done)
	}
}

// push triggers a change through the server's bench API and waits until every stream that
// still reads has ACKed a CDS response received after the trigger.
func (lg *loadgen) push(url string, timeout time.Duration) map[string]any {
	r := lg.runRound(&lg.round, lg.reading(), url, timeout)
	reply := map[string]any{
		"event":    "push",
		"expected": r.expected,
		"acked":    len(r.latencies),
		"timedOut": r.timedOut,
		"httpMs":   r.httpMs,
		"latency":  summarize(r.latencies),
		"errors":   lg.errs.snapshot(),
		// Responses of every type received before this push's trigger.
		"responsesAtTrigger": r.responsesAtTrigger,
	}
	if r.httpErr != nil {
		reply["error"] = r.httpErr.Error()
	}
	return reply
}

// roundResult is what one triggered round saw: the latencies (and the served times) its
// streams recorded, copied out once the round is over.
type roundResult struct {
	expected  int
	latencies []float64
	served    []float64
	httpMs    float64
	httpErr   error
	timedOut  bool
	// Responses received before the trigger (lg.responses).
	responsesAtTrigger int64
}

// runRound publishes a round in slot, for the streams to record into, triggers it through
// url and waits until its expected streams are done or timeout passes.
func (lg *loadgen) runRound(slot *atomic.Pointer[pushRound], expected int, url string, timeout time.Duration) roundResult {
	round := &pushRound{seq: lg.seq.Add(1), expected: expected, done: make(chan struct{})}
	if expected == 0 {
		close(round.done)
	}
	round.t0 = time.Now()
	slot.Store(round)
	r := roundResult{expected: expected, responsesAtTrigger: lg.responses.Load()}
	r.httpErr = trigger(url)
	r.httpMs = ms(time.Since(round.t0))
	if r.httpErr == nil {
		select {
		case <-round.done:
		case <-time.After(timeout):
			r.timedOut = true
		}
	}
	slot.Store(nil)
	round.mu.Lock()
	r.latencies = append([]float64(nil), round.latencies...)
	r.served = append([]float64(nil), round.served...)
	round.mu.Unlock()
	return r
}

func trigger(url string) error {
	res, err := http.Post(url, "application/json", nil)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: HTTP %d: %s", url, res.StatusCode, body)
	}
	return nil
}

// drop takes the server down through its API (POST url) and waits until every stream the
// generator opened has ended (each then reconnects on its own with -reconnect).
func (lg *loadgen) drop(url string, timeout time.Duration) map[string]any {
	lg.mu.Lock()
	clients := append([]*client(nil), lg.clients...)
	lg.mu.Unlock()
	before := make([]int64, len(clients))
	for i, c := range clients {
		before[i] = c.ends.Load()
	}
	t0 := time.Now()
	httpErr := trigger(url)
	httpMs := ms(time.Since(t0))
	deadline := time.Now().Add(timeout)
	ended := 0
	for httpErr == nil {
		ended = 0
		for i, c := range clients {
			if c.ends.Load() > before[i] {
				ended++
			}
		}
		if ended == len(clients) || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	reply := map[string]any{
		"event":      "drop",
		"streams":    len(clients),
		"ended":      ended,
		"httpMs":     httpMs,
		"allEndedMs": ms(time.Since(t0)),
		"timedOut":   ended < len(clients),
		"reasons":    lg.drops.snapshot(),
	}
	if httpErr != nil {
		reply["error"] = httpErr.Error()
	}
	return reply
}

// rejoin brings the server up through its API (POST url) and times, from just before the
// call, until every stream has connected again and ACKed its whole initial config.
func (lg *loadgen) rejoin(url string, timeout time.Duration) map[string]any {
	lg.mu.Lock()
	expected := len(lg.clients)
	lg.mu.Unlock()
	redials := lg.redials.Load()
	r := lg.runRound(&lg.rejoinRound, expected, url, timeout)
	reply := map[string]any{
		"event":    "rejoin",
		"served":   summarize(r.served),
		"expected": r.expected,
		"acked":    len(r.latencies),
		"timedOut": r.timedOut,
		"httpMs":   r.httpMs,
		"latency":  summarize(r.latencies),
		"backoffs": lg.redials.Load() - redials,
		"errors":   lg.errs.snapshot(),
	}
	if !r.timedOut && r.httpErr == nil && len(r.latencies) > 0 {
		reply["allAckedMs"] = slices.Max(r.latencies)
	}
	if r.httpErr != nil {
		reply["error"] = r.httpErr.Error()
	}
	return reply
}

// stall makes n reading streams stop reading (they keep their connection open).
func (lg *loadgen) stall(n int) map[string]any {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	stalled := 0
	for _, c := range lg.clients {
		if stalled == n {
			break
		}
		if c.alive.Load() && !c.stalled.Load() {
			c.stalled.Store(true)
			stalled++
		}
	}
	return map[string]any{"event": "stall", "stalled": stalled}
}

// alive counts streams still open; reading counts those that also still read.
func (lg *loadgen) alive() int {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	count := 0
	for _, c := range lg.clients {
		if c.alive.Load() {
			count++
		}
	}
	return count
}

func (lg *loadgen) reading() int {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	count := 0
	for _, c := range lg.clients {
		if c.alive.Load() && !c.stalled.Load() {
			count++
		}
	}
	return count
}

func (lg *loadgen) close() {
	lg.cancel()
	lg.mu.Lock()
	defer lg.mu.Unlock()
	for _, c := range lg.clients {
		c.closeConn()
	}
}

// errorLog counts stream errors and keeps the first few messages.
type errorLog struct {
	mu      sync.Mutex
	count   int
	samples []string
}

func (e *errorLog) add(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.count++
	if len(e.samples) < 5 {
		e.samples = append(e.samples, err.Error())
	}
}

func (e *errorLog) snapshot() map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	return map[string]any{"count": e.count, "samples": append([]string{}, e.samples...)}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
