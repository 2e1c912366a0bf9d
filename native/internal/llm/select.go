// Package llm holds kontext's model adapters — `command` (a local program
// that reads one JSON request on stdin) and `openai` (an OpenAI-compatible
// chat-completions server) — and their selection from local configuration
// only: KONTEXT_LLM, then <git-dir>/kontext/config.toml, then the user's
// config. A committed configuration never selects an adapter, so a cloned
// repository cannot make a machine run a command or call a host.
package llm

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
)

// Adapter names.
const (
	None    = "none"
	Command = "command"
	OpenAI  = "openai"
)

// DefaultTimeout bounds one model call when the config names none.
const DefaultTimeout = 60 * time.Second

// Settings is the [llm] table of a local config file.
type Settings struct {
	Adapter     string   `toml:"adapter"`
	Command     []string `toml:"command"`
	TimeoutSecs int      `toml:"timeout_secs"`
	OpenAI      struct {
		BaseURL   string `toml:"base_url"`
		Model     string `toml:"model"`
		APIKeyEnv string `toml:"api_key_env"`
	} `toml:"openai"`
	// Source names where the adapter choice came from (status reason).
	Source string `toml:"-"`
}

type localFile struct {
	LLM *Settings `toml:"llm"`
}

// Selection is the local model selection of one repository
// (engine.Models).
type Selection struct {
	settings Settings
	err      error // a local config that cannot be read
	// Getenv reads the environment (tests replace it).
	getenv func(string) string
	// RetryDelay is the first backoff of the openai adapter (tests shorten it).
	RetryDelay time.Duration
}

// Select reads the local selection for the repository whose git dir is
// gitDir ("" outside git): KONTEXT_LLM wins, then the first local config
// file with an [llm] table. KONTEXT_LLM_COMMAND (a JSON array or
// space-separated words), KONTEXT_LLM_BASE_URL, KONTEXT_LLM_MODEL,
// KONTEXT_LLM_API_KEY_ENV and KONTEXT_LLM_TIMEOUT_SECS override single
// settings.
func Select(gitDir string) *Selection {
	s := &Selection{getenv: os.Getenv, RetryDelay: 500 * time.Millisecond}
	for _, f := range ConfigFiles(gitDir) {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var lf localFile
		if err := toml.NewDecoder(strings.NewReader(string(data))).DisallowUnknownFields().Decode(&lf); err != nil {
			s.err = fmt.Errorf("%s: %v", f, err)
			break
		}
		if lf.LLM != nil {
			s.settings = *lf.LLM
			s.settings.Source = f
			break
		}
	}
	s.applyEnv()
	return s
}

// ConfigFiles are the local config files a selection reads, first first:
// <git-dir>/kontext/config.toml (none outside git), then the user's.
func ConfigFiles(gitDir string) []string {
	var files []string
	if gitDir != "" {
		files = append(files, filepath.Join(gitDir, "kontext", "config.toml"))
	}
	if d := userConfigDir(); d != "" {
		files = append(files, filepath.Join(d, "kontext", "config.toml"))
	}
	return files
}

func userConfigDir() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return d
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".config")
	}
	return ""
}

func (s *Selection) applyEnv() {
	env := s.getenv
	if v := strings.TrimSpace(env("KONTEXT_LLM")); v != "" {
		s.settings.Adapter, s.settings.Source = strings.ToLower(v), "KONTEXT_LLM"
	}
	if v := strings.TrimSpace(env("KONTEXT_LLM_COMMAND")); v != "" {
		var argv []string
		if strings.HasPrefix(v, "[") && json.Unmarshal([]byte(v), &argv) == nil {
			s.settings.Command = argv
		} else {
			s.settings.Command = strings.Fields(v)
		}
	}
	if v := env("KONTEXT_LLM_BASE_URL"); v != "" {
		s.settings.OpenAI.BaseURL = v
	}
	if v := env("KONTEXT_LLM_MODEL"); v != "" {
		s.settings.OpenAI.Model = v
	}
	if v := env("KONTEXT_LLM_API_KEY_ENV"); v != "" {
		s.settings.OpenAI.APIKeyEnv = v
	}
	if v := env("KONTEXT_LLM_TIMEOUT_SECS"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			s.settings.TimeoutSecs = n
		}
	}
}

func (s *Selection) timeout() time.Duration {
	if s.settings.TimeoutSecs > 0 {
		return time.Duration(s.settings.TimeoutSecs) * time.Second
	}
	return DefaultTimeout
}

// Status is status.llm: the actual selection, checked cheaply (the command
// is on PATH, the base URL parses, the key's variable is set), never by
// calling the model.
func (s *Selection) Status() api.LLMStatus {
	st := api.LLMStatus{}
	name := s.settings.Adapter
	if name != "" {
		st.Adapter = &name
	}
	st.Selected = name != "" && name != None
	if st.Selected {
		if m := s.modelName(name); m != "" {
			st.Model = &m
		}
	}
	reason := s.check(name)
	st.Available = st.Selected && reason == ""
	if reason != "" {
		st.Reason = &reason
	} else if s.settings.Source != "" {
		r := "selected by " + s.settings.Source
		st.Reason = &r
	}
	return st
}

func (s *Selection) modelName(adapter string) string {
	switch adapter {
	case Command:
		if len(s.settings.Command) > 0 {
			return strings.Join(s.settings.Command, " ")
		}
	case OpenAI:
		return s.settings.OpenAI.Model
	}
	return ""
}

// check says why adapter cannot be used ("" when it can).
func (s *Selection) check(adapter string) string {
	if s.err != nil {
		return "the local model configuration cannot be read: " + s.err.Error()
	}
	switch adapter {
	case "":
		return "no model adapter is selected: set KONTEXT_LLM (command or openai) or [llm] in <git-dir>/kontext/config.toml or ~/.config/kontext/config.toml"
	case None:
		return "the model adapter is none (selected by " + s.settings.Source + ")"
	case Command:
		if len(s.settings.Command) == 0 {
			return "the command adapter needs [llm] command = [\"program\", \"arg\"…] in the local config (or KONTEXT_LLM_COMMAND)"
		}
		if _, err := exec.LookPath(s.settings.Command[0]); err != nil {
			return fmt.Sprintf("the model command %q is not found on PATH", s.settings.Command[0])
		}
	case OpenAI:
		o := s.settings.OpenAI
		u, err := url.Parse(o.BaseURL)
		if o.BaseURL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Sprintf("[llm.openai] base_url %q is not an http(s) URL such as http://127.0.0.1:11434/v1", o.BaseURL)
		}
		if o.Model == "" {
			return "[llm.openai] model is not set"
		}
		if o.APIKeyEnv != "" && s.getenv(o.APIKeyEnv) == "" {
			return fmt.Sprintf("the API key variable %s named by [llm.openai] api_key_env is not set", o.APIKeyEnv)
		}
	default:
		return fmt.Sprintf("unknown model adapter %q (none, command, openai)", adapter)
	}
	return ""
}

// Pick returns the selected adapter (name "") or the named one.
func (s *Selection) Pick(name string) (engine.Model, error) {
	adapter := s.settings.Adapter
	if name != "" {
		adapter = strings.ToLower(name)
	}
	if adapter == None && name != "" {
		return nil, apierr.New(apierr.ModelUnavailable, "llm names the adapter none, which never answers; pass llm: true for the selected adapter, or command or openai")
	}
	if reason := s.check(adapter); reason != "" {
		return nil, apierr.New(apierr.ModelUnavailable, "no usable model: %s; or call the operation without llm", reason)
	}
	switch adapter {
	case Command:
		return &commandModel{argv: s.settings.Command, timeout: s.timeout()}, nil
	default:
		o := s.settings.OpenAI
		key := ""
		if o.APIKeyEnv != "" {
			key = s.getenv(o.APIKeyEnv)
		}
		return &openaiModel{baseURL: strings.TrimRight(o.BaseURL, "/"), model: o.Model, key: key,
			timeout: s.timeout(), retryDelay: s.RetryDelay}, nil
	}
}
