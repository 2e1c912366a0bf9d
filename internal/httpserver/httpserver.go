// Package httpserver owns how kontext's local HTTP servers (`kontext
// review`, `kontext mcp --http`) run and stop: serve until the context
// ends, then stop accepting and let the requests in flight finish.
package httpserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// ErrCutOff: requests were still in flight when the drain time ran out,
// and were closed.
var ErrCutOff = errors.New("requests still in flight were cut off")

// Run serves h on ln until ctx is done, then stops accepting and lets the
// requests in flight finish (at most drain), then closes what is left
// (ErrCutOff).
func Run(ctx context.Context, ln net.Listener, h http.Handler, drain time.Duration) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		srv.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	if err != nil {
		return fmt.Errorf("%w after %s", ErrCutOff, drain)
	}
	return nil
}
