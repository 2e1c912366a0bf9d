package httpserver

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestRun: a stop lets the request in flight finish and Run returns nil;
// when the drain time runs out first, the request is closed and Run says
// so (ErrCutOff).
func TestRun(t *testing.T) {
	for _, c := range []struct {
		name  string
		drain time.Duration
		want  error
	}{
		{"drained", time.Minute, nil},
		{"cut off", 0, ErrCutOff},
	} {
		t.Run(c.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			entered, release := make(chan struct{}), make(chan struct{})
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				close(entered)
				<-release
				io.WriteString(w, "answered")
			})
			ctx, stop := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- Run(ctx, ln, h, c.drain) }()
			got := make(chan string, 1)
			go func() {
				resp, err := http.Get("http://" + ln.Addr().String() + "/")
				if err != nil {
					got <- "error: " + err.Error()
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				got <- string(b)
			}()
			<-entered
			stop()
			if c.want != nil {
				err := <-done // cut off while the handler still waits
				close(release)
				if !errors.Is(err, c.want) {
					t.Fatalf("Run: %v, want %v", err, c.want)
				}
				if g := <-got; g == "answered" {
					t.Fatal("a request cut off was answered")
				}
				return
			}
			close(release)
			if g := <-got; g != "answered" {
				t.Fatalf("the request in flight: %q", g)
			}
			if err := <-done; err != nil {
				t.Fatalf("Run: %v", err)
			}
		})
	}
}
