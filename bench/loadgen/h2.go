package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// grpcStream is one gRPC bidirectional stream on a connection of its own, spoken directly in
// HTTP/2 frames. A full gRPC client (grpc-go) costs the generator about as much CPU per
// message as the server under test spends, which made the generator the bottleneck of the
// fan-out figures; this client does only what an ADS stream needs: one goroutine, one read
// and one write per message, no per-message allocation beyond the frame.
type grpcStream struct {
	conn     net.Conn
	framer   *http2.Framer
	out      *bufio.Writer
	window   uint32
	unacked  uint32
	pending  []byte
	messages [][]byte
	closed   error
	// frame is reused for every message sent (length prefix + payload).
	frame []byte
}

const streamID = 1

var clientPreface = []byte(http2.ClientPreface)

// dialGRPC connects, retrying refused connections until ctx ends (a server's listen backlog
// can overflow during a ramp of thousands, and a server that is down refuses), waiting
// `backoff()` between attempts, and opens a stream on `path`.
func dialGRPC(ctx context.Context, target, path string, window uint32, backoff func() time.Duration) (*grpcStream, error) {
	var conn net.Conn
	var err error
	dialer := net.Dialer{}
	for {
		conn, err = dialer.DialContext(ctx, "tcp", target)
		if err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(backoff()):
		}
	}
	s := &grpcStream{conn: conn, out: bufio.NewWriterSize(conn, 32<<10), window: window}
	s.framer = http2.NewFramer(s.out, bufio.NewReaderSize(conn, 32<<10))
	s.framer.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	s.framer.SetMaxReadFrameSize(1 << 20)
	if err := s.open(target, path); err != nil {
		_ = conn.Close()
		return nil, err
	}
	return s, nil
}

func (s *grpcStream) open(authority, path string) error {
	if _, err := s.out.Write(clientPreface); err != nil {
		return err
	}
	// A fixed window, the same for the stream and the connection: WINDOW_UPDATEs are sent as
	// messages are read, so a client that stops reading stops the server at `window` bytes.
	if err := s.framer.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: s.window}); err != nil {
		return err
	}
	if s.window > 65535 {
		if err := s.framer.WriteWindowUpdate(0, s.window-65535); err != nil {
			return err
		}
	}
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	for _, f := range [][2]string{
		{":method", "POST"}, {":scheme", "http"}, {":path", path}, {":authority", authority},
		{"content-type", "application/grpc"}, {"te", "trailers"}, {"user-agent", "mock-istiod-bench-loadgen"},
	} {
		if err := enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]}); err != nil {
			return err
		}
	}
	if err := s.framer.WriteHeaders(http2.HeadersFrameParam{StreamID: streamID, BlockFragment: block.Bytes(), EndHeaders: true}); err != nil {
		return err
	}
	return s.out.Flush()
}

// send writes one gRPC message (length-prefixed) in DATA frames and flushes.
func (s *grpcStream) send(payload []byte) error {
	s.frame = append(s.frame[:0], 0, 0, 0, 0, 0)
	binary.BigEndian.PutUint32(s.frame[1:5], uint32(len(payload)))
	s.frame = append(s.frame, payload...)
	message := s.frame
	for len(message) > 0 {
		n := min(len(message), 16384)
		if err := s.framer.WriteData(streamID, false, message[:n]); err != nil {
			return err
		}
		message = message[n:]
	}
	return s.out.Flush()
}

// recv returns the next gRPC message of the stream, answering SETTINGS and PING and giving
// flow-control credit back as data is read.
func (s *grpcStream) recv() ([]byte, error) {
	for len(s.messages) == 0 {
		if s.closed != nil {
			return nil, s.closed
		}
		if err := s.readFrame(); err != nil {
			s.closed = err
		}
	}
	message := s.messages[0]
	s.messages = s.messages[1:]
	return message, nil
}

func (s *grpcStream) readFrame() error {
	frame, err := s.framer.ReadFrame()
	if err != nil {
		return err
	}
	switch f := frame.(type) {
	case *http2.DataFrame:
		s.pending = append(s.pending, f.Data()...)
		s.split()
		return s.credit(f.Length)
	case *http2.MetaHeadersFrame:
		if f.StreamEnded() {
			return fmt.Errorf("stream ended by the server: grpc-status %s %q", headerValue(f, "grpc-status"), headerValue(f, "grpc-message"))
		}
	case *http2.SettingsFrame:
		if !f.IsAck() {
			if err := s.framer.WriteSettingsAck(); err != nil {
				return err
			}
			return s.out.Flush()
		}
	case *http2.PingFrame:
		if !f.IsAck() {
			if err := s.framer.WritePing(true, f.Data); err != nil {
				return err
			}
			return s.out.Flush()
		}
	case *http2.RSTStreamFrame:
		return fmt.Errorf("stream reset by the server: %v", f.ErrCode)
	case *http2.GoAwayFrame:
		return fmt.Errorf("connection closed by the server (GOAWAY %v)", f.ErrCode)
	}
	return nil
}

func headerValue(f *http2.MetaHeadersFrame, name string) string {
	for _, field := range f.RegularFields() {
		if field.Name == name {
			return field.Value
		}
	}
	return ""
}

// split moves every complete length-prefixed message out of the pending bytes.
func (s *grpcStream) split() {
	for len(s.pending) >= 5 {
		size := int(binary.BigEndian.Uint32(s.pending[1:5]))
		if len(s.pending) < 5+size {
			return
		}
		s.messages = append(s.messages, s.pending[5:5+size:5+size])
		s.pending = s.pending[5+size:]
	}
	if len(s.pending) == 0 {
		s.pending = nil
	}
}

// credit returns read bytes to the server's send window once half of it is used up.
func (s *grpcStream) credit(n uint32) error {
	s.unacked += n
	if s.unacked < s.window/2 {
		return nil
	}
	credit := s.unacked
	s.unacked = 0
	if err := s.framer.WriteWindowUpdate(0, credit); err != nil {
		return err
	}
	if err := s.framer.WriteWindowUpdate(streamID, credit); err != nil {
		return err
	}
	return s.out.Flush()
}

// close ends the connection; safe from any goroutine (a blocked recv returns an error).
func (s *grpcStream) close() error {
	return s.conn.Close()
}
