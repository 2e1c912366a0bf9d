package mcpserver

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The HTTP transport's limits (docs/mcp.md).
const (
	// MaxBody is the largest request body served; a larger one is 413.
	MaxBody = 1 << 20
	// MaxInFlight is how many requests are served at once; one more is
	// 503 with Retry-After.
	MaxInFlight = 64
	// Path is where the MCP endpoint is served.
	Path = "/mcp"
)

// HTTPOptions are the guards of the HTTP transport.
type HTTPOptions struct {
	// Loopback: the server listens on a loopback address, so a request's
	// Host and Origin must name a loopback host (DNS rebinding).
	Loopback bool
	// Token, when set, is the bearer token every request must carry
	// (Authorization: Bearer <Token>), compared in constant time.
	Token string
	// MaxBody and MaxInFlight default to the package's limits when zero.
	MaxBody     int64
	MaxInFlight int
}

// NewHTTPHandler serves the kontext MCP server at Path over the MCP
// Streamable HTTP transport: the SDK's handler in its sessionless mode
// (each POST is answered on its own; an initialize handshake is answered
// too; an Mcp-Session-Id header is ignored and never set; GET and DELETE
// are 405), one server — and so one engine per directory — for all
// requests. Before the SDK sees a request it must pass the guards, in
// this order: Host (403), Origin (403), token (401), body size (413),
// requests in flight (503 with Retry-After).
func NewHTTPHandler(dir string, o HTTPOptions) http.Handler {
	if o.MaxBody <= 0 {
		o.MaxBody = MaxBody
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = MaxInFlight
	}
	srv := New(dir)
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		MaxRequestBodyBytes: o.MaxBody,
	})
	g := &guard{opts: o, next: sdk, slots: make(chan struct{}, o.MaxInFlight)}
	if o.Token != "" {
		sum := sha256.Sum256([]byte(o.Token))
		g.token = sum[:]
	}
	return g
}

// guard checks what the SDK's handler does not before handing a request on.
type guard struct {
	opts  HTTPOptions
	token []byte // sha256 of the token; nil: no token asked
	next  http.Handler
	slots chan struct{}
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != Path {
		http.Error(w, fmt.Sprintf("Not Found: the MCP endpoint is %s", Path), http.StatusNotFound)
		return
	}
	if g.opts.Loopback && !loopbackHost(hostOnly(r.Host)) {
		http.Error(w, fmt.Sprintf("Forbidden: Host %q is not this machine's loopback address; a loopback server answers only Host localhost, 127.0.0.1 or [::1]", r.Host), http.StatusForbidden)
		return
	}
	if origin := r.Header.Values("Origin"); len(origin) > 0 && !g.originAllowed(origin, r.Host) {
		http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not allowed (%s)", strings.Join(origin, ", "), g.originRule()), http.StatusForbidden)
		return
	}
	if g.token != nil && !g.authorized(r.Header.Get("Authorization")) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="kontext"`)
		http.Error(w, "Unauthorized: send the server's token as Authorization: Bearer <token>", http.StatusUnauthorized)
		return
	}
	if r.ContentLength > g.opts.MaxBody { // declared; a longer chunked body is the SDK's 413
		http.Error(w, fmt.Sprintf("Request Entity Too Large: the body is %d bytes; the limit is %d", r.ContentLength, g.opts.MaxBody), http.StatusRequestEntityTooLarge)
		return
	}
	select {
	case g.slots <- struct{}{}:
		defer func() { <-g.slots }()
	default:
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("Service Unavailable: %d requests are being served; retry after a second", cap(g.slots)), http.StatusServiceUnavailable)
		return
	}
	g.next.ServeHTTP(w, r)
}

// originAllowed: one Origin, a URL whose host is a loopback host on a
// loopback server (any port: a local tool's page), else the request's own
// host (same origin). "null" and anything unparsable are foreign.
func (g *guard) originAllowed(values []string, host string) bool {
	if len(values) != 1 {
		return false
	}
	u, err := url.Parse(values[0])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	if g.opts.Loopback {
		return loopbackHost(u.Hostname())
	}
	return strings.EqualFold(u.Host, host)
}

func (g *guard) originRule() string {
	if g.opts.Loopback {
		return "a loopback server answers pages from localhost, 127.0.0.1 or [::1] only"
	}
	return "only the server's own origin is answered"
}

// authorized compares the bearer token in constant time (both sides
// hashed, so neither the content nor the length leaks).
func (g *guard) authorized(header string) bool {
	scheme, tok, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(sum[:], g.token) == 1
}

// hostOnly is a Host header's host without its port or brackets.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}

// loopbackHost: localhost, or a literal loopback IP address.
func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// IsLoopback reports whether ln listens on a loopback address only.
func IsLoopback(ln net.Listener) bool {
	a, ok := ln.Addr().(*net.TCPAddr)
	return ok && a.IP.IsLoopback()
}
