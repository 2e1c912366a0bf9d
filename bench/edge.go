package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kontext/kontext/internal/benchcorpus"
	"github.com/kontext/kontext/internal/edge"
)

// edgeRows measures the edge worker on a real workerd (`kontext edge
// serve`): POST /v1/governing with 100 paths over 1,000 entries, 2,000
// sequential requests after warm-up (latency at the client, CPU of the
// workerd process), the cold first request, and the deployable size; and
// the same request through github.com/syumai/workers' Serve (bench/syumai,
// a module of its own), the design that was not taken.
func edgeRows(root, tmp string) ([]row, []string) {
	var rows []row
	var notes []string
	bin := filepath.Join(tmp, "kontext-edge")
	run(root, "env", "CGO_ENABLED=0", "go", "build", "-trimpath", "-o", bin, "./cmd/kontext")
	repo := filepath.Join(tmp, "edge-1000")
	check(os.MkdirAll(repo, 0o755))
	_, err := benchcorpus.Repo(repo, 1000)
	check(err)
	_, paths := benchcorpus.Governing(1000)
	body, err := json.Marshal(map[string]any{"paths": paths[:100]})
	check(err)
	bundle := filepath.Join(tmp, "edge-1000.json")
	run(root, bin, "-C", repo, "bundle", "-o", bundle)

	var built struct {
		Gzip int64 `json:"gzip_bytes"`
	}
	check(json.Unmarshal(run(root, bin, "--json", "edge", "build", "-o", filepath.Join(tmp, "edge-deploy"), "--bundle", bundle), &built))
	rows = append(rows, row{workload: "edge worker deployable size (`kontext edge build`, engine + worker + a 1,000-entry bundle), gzip",
		ours: fmt.Sprintf("%.2f MB", float64(built.Gzip)/1e6), reference: "Workers limit 3 MB free, 10 MB paid", ratio: "—", budget: "≤ 3 MB", pass: built.Gzip <= 3_000_000})

	port, err := edge.FreePort()
	check(err)
	cmd := exec.Command(bin, "edge", "serve", "--port", strconv.Itoa(port), "--bundle", bundle)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	check(err)
	check(cmd.Start())
	onExit = append(onExit, func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	if !bufio.NewScanner(stdout).Scan() { // the URL line: workerd answers
		check(fmt.Errorf("kontext edge serve did not start"))
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/v1/governing", port)
	workerd := childPID(cmd.Process.Pid)
	s := measure(url, body, workerd, 200, 2000)
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	onExit = onExit[:len(onExit)-1]
	rows = append(rows,
		row{workload: "edge worker on workerd: `POST /v1/governing`, 100 paths over 1,000 entries, 2,000 sequential requests after warm-up — p50", ours: ms(s.p50), reference: "—", ratio: "—", budget: "≤ 3 ms", pass: s.p50 <= 3},
		row{workload: "edge worker, same — p99", ours: ms(s.p99), reference: "—", ratio: "—", budget: "≤ 10 ms", pass: s.p99 <= 10},
		row{workload: "edge worker, same — workerd CPU (user + sys) per request", ours: ms(s.cpu), reference: "—", ratio: "—", budget: "≤ 5 ms", pass: s.cpu <= 5},
		row{workload: "edge worker: cold first request (engine boot + bundle open + answer, fresh workerd)", ours: ms(s.cold), reference: "—", ratio: "—", budget: "≤ 150 ms", pass: s.cold <= 150},
	)

	sy, err := syumaiServe(root, tmp, bundle, body)
	if err != nil {
		notes = append(notes, "syumai/workers Serve row not measured: "+err.Error())
	} else {
		rows = append(rows, row{
			workload:  "same request through `github.com/syumai/workers` v0.31.0 `Serve` (a new Go instance per request parsing the bundle; bench/syumai, not linked into kontext), " + strconv.Itoa(syumaiRequests) + " requests after warm-up",
			ours:      fmt.Sprintf("p50 %s, p99 %s, CPU %s", ms(sy.p50), ms(sy.p99), ms(sy.cpu)),
			reference: fmt.Sprintf("edge worker p50 %s, p99 %s, CPU %s", ms(s.p50), ms(s.p99), ms(s.cpu)),
			ratio:     fmt.Sprintf("%.0f× slower (CPU %.0f×)", sy.p50/s.p50, sy.cpu/s.cpu),
			budget:    "comparison (docs/edge.md)", pass: true,
		})
	}
	drows, dnotes := edgeDenseRows(root, tmp, bin)
	rows, notes = append(rows, drows...), append(notes, dnotes...)
	rrows, rnotes := edgeReposRows(root, tmp, bin)
	rows, notes = append(rows, rrows...), append(notes, rnotes...)
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		notes = append(notes, "edge rows measured at load average "+strings.Join(strings.Fields(string(load))[:3], " "))
	}
	return rows, notes
}

type latency struct{ p50, p99, cpu, cold float64 }

// syumaiRequests are the timed requests of the syumai row (each one starts
// a Go instance and parses the bundle: a few hundred ms).
const syumaiRequests = 20

// measure sends one cold request, warm requests, then n timed requests;
// CPU is the workerd process's user + sys time over the timed ones.
func measure(url string, body []byte, pid, warm, n int) latency {
	client := &http.Client{Timeout: 30 * time.Second}
	send := func() float64 {
		t := time.Now()
		res, err := client.Post(url, "application/json", bytes.NewReader(body))
		check(err)
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			check(fmt.Errorf("%s answered %d", url, res.StatusCode))
		}
		return float64(time.Since(t).Microseconds()) / 1000
	}
	var s latency
	s.cold = send()
	// The answer is a governing answer, not an error envelope.
	res, err := client.Post(url, "application/json", bytes.NewReader(body))
	check(err)
	first, _ := io.ReadAll(res.Body)
	res.Body.Close()
	// (entries, or items in the engine's compact view)
	if !bytes.Contains(first, []byte(`"ok":true`)) || !(bytes.Contains(first, []byte(`"entries":[{`)) || bytes.Contains(first, []byte(`"items":[{`))) {
		check(fmt.Errorf("%s: not a governing answer: %.300s", url, first))
	}
	for i := 0; i < warm; i++ {
		send()
	}
	cpu0 := procCPU(pid)
	times := make([]float64, n)
	for i := range times {
		times[i] = send()
	}
	s.cpu = (procCPU(pid) - cpu0) / float64(n)
	sort.Float64s(times)
	s.p50, s.p99 = times[n/2], times[n*99/100]
	return s
}

// childPID is the first child of pid (workerd under kontext edge serve).
func childPID(pid int) int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		data, _ := os.ReadFile(t)
		if f := strings.Fields(string(data)); len(f) > 0 {
			n, _ := strconv.Atoi(f[0])
			return n
		}
	}
	check(fmt.Errorf("no child process of %d (workerd)", pid))
	return 0
}

var statTail = regexp.MustCompile(`\) \S+ (.*)$`)

// procCPU is a process's user + sys CPU time in ms (/proc/<pid>/stat).
func procCPU(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	check(err)
	m := statTail.FindStringSubmatch(strings.TrimSpace(string(data)))
	f := strings.Fields(m[1]) // from field 4 (ppid) on
	utime, _ := strconv.ParseFloat(f[10], 64)
	stime, _ := strconv.ParseFloat(f[11], 64)
	return (utime + stime) * 10 // USER_HZ is 100 on Linux
}

// syumaiServe builds bench/syumai (the bundle embedded) for js/wasm, runs it
// on workerd with syumai's own JS entry (worker.mjs, runtime cloudflare.mjs)
// and its wasm_exec.js, and measures the same request.
func syumaiServe(root, tmp, bundle string, body []byte) (latency, error) {
	mod := filepath.Join(root, "bench", "syumai")
	data, err := os.ReadFile(bundle)
	if err != nil {
		return latency{}, err
	}
	embedded := filepath.Join(mod, "bundle.json")
	if err := os.WriteFile(embedded, data, 0o644); err != nil {
		return latency{}, err
	}
	defer os.Remove(embedded)
	dir := filepath.Join(tmp, "syumai")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return latency{}, err
	}
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(dir, "app.wasm"), ".")
	build.Dir = mod
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		return latency{}, fmt.Errorf("building bench/syumai: %v: %s", err, out)
	}
	list := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/syumai/workers")
	list.Dir = mod
	out, err := list.Output()
	if err != nil {
		return latency{}, fmt.Errorf("go list syumai/workers: %v", err)
	}
	assets := filepath.Join(strings.TrimSpace(string(out)), "cmd", "workers-assets-gen", "assets")
	// syumai's own wasm_exec.js: its run(instance, context) hands each
	// instance the request's context.
	for src, dst := range map[string]string{
		filepath.Join(assets, "common", "worker.mjs"):      "worker.mjs",
		filepath.Join(assets, "runtime", "cloudflare.mjs"): "runtime.mjs",
		filepath.Join(assets, "wasm_exec_go.js"):           "wasm_exec.js",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			return latency{}, err
		}
		if err := os.WriteFile(filepath.Join(dir, dst), b, 0o644); err != nil {
			return latency{}, err
		}
	}
	port, err := edge.FreePort()
	if err != nil {
		return latency{}, err
	}
	cfg := `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .w) ],
  sockets = [ (name = "http", address = "127.0.0.1:` + strconv.Itoa(port) + `", http = (), service = "main") ],
);
const w :Workerd.Worker = (
  modules = [
    (name = "worker.mjs", esModule = embed "worker.mjs"),
    (name = "runtime.mjs", esModule = embed "runtime.mjs"),
    (name = "wasm_exec.js", esModule = embed "wasm_exec.js"),
    (name = "app.wasm", wasm = embed "app.wasm"),
  ],
  compatibilityDate = "` + edge.CompatibilityDate + `",
);
`
	if err := os.WriteFile(filepath.Join(dir, "workerd.capnp"), []byte(cfg), 0o644); err != nil {
		return latency{}, err
	}
	workerd, err := edge.FindWorkerd(root, os.Getenv)
	if err != nil {
		return latency{}, err
	}
	cmd := exec.Command(workerd, "serve", "workerd.capnp")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return latency{}, err
	}
	stop := func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}
	onExit = append(onExit, stop)
	defer func() {
		stop()
		onExit = onExit[:len(onExit)-1]
	}()
	url := fmt.Sprintf("http://127.0.0.1:%d/", port)
	for i := 0; ; i++ {
		if res, err := http.Get(url + "healthz"); err == nil {
			res.Body.Close()
			break
		}
		if i > 600 {
			return latency{}, fmt.Errorf("workerd with the syumai worker did not answer")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Each request boots Go and parses the bundle: 20 are enough.
	return measure(url, body, cmd.Process.Pid, 2, syumaiRequests), nil
}
