package main

import (
	"context"
	"net/http/httptrace"
)

// withConnTrace sets *fresh when the request is sent on a new connection.
func withConnTrace(ctx context.Context, fresh *bool) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { *fresh = !info.Reused },
	})
}
