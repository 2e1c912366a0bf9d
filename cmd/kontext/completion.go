package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/kontext/kontext/engine"
)

// globalFlags are the flags every command takes, for completions and the
// man page.
var globalFlags = []string{"-C", "--json", "--jq", "--color", "--progress", "--version", "--help"}

func commandNames() []string {
	names := make([]string, 0, len(commands)+1)
	for _, c := range commands {
		names = append(names, c.name)
	}
	return append(names, "help")
}

// runCompletionCmd prints a completion script built from the command table,
// so a new command is completed without editing a script.
func runCompletionCmd(ctx context.Context, g *factory, args []string) int {
	if len(args) != 1 {
		fmt.Fprintf(g.io.ErrOut, "kontext completion: name one shell: bash, zsh or fish\n")
		return exitUsage
	}
	names := strings.Join(commandNames(), " ")
	flags := strings.Join(globalFlags, " ")
	w := g.io.Out
	switch args[0] {
	case "bash":
		fmt.Fprintf(w, `# bash completion for kontext (kontext completion bash)
_kontext() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} i cmd=""
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-C|--jq|--color|--progress) ((i++)) ;;
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	case $prev in
	-C) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
	--progress) COMPREPLY=($(compgen -W "jsonl" -- "$cur")); return ;;
	esac
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "%s" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "%s" -- "$cur"))
		fi
		return
	fi
	case $cmd in
	help) COMPREPLY=($(compgen -W "%s" -- "$cur")) ;;
	completion) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")) ;;
	*) COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
}
complete -o default -F _kontext kontext
`, flags, names, names)
	case "zsh":
		fmt.Fprintf(w, `#compdef kontext
# zsh completion for kontext (kontext completion zsh)
_kontext() {
	local -a cmds
	cmds=(%s)
	if (( CURRENT == 2 )); then
		_describe 'command' cmds
	else
		case ${words[2]} in
		completion) _values 'shell' bash zsh fish ;;
		help) _describe 'command' cmds ;;
		*) _files ;;
		esac
	fi
}
compdef _kontext kontext
`, zshDescribed())
	case "fish":
		fmt.Fprintf(w, "# fish completion for kontext (kontext completion fish)\n")
		for _, c := range commands {
			fmt.Fprintf(w, "complete -c kontext -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.summary))
		}
		fmt.Fprintf(w, "complete -c kontext -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n")
		fmt.Fprintf(w, "complete -c kontext -l json -d 'print JSON'\ncomplete -c kontext -l jq -r -d 'filter the JSON with jq'\n")
		fmt.Fprintf(w, "complete -c kontext -l color -r -a 'auto always never'\ncomplete -c kontext -s C -r -a '(__fish_complete_directories)'\n")
	default:
		fmt.Fprintf(g.io.ErrOut, "kontext completion: unknown shell %q (bash, zsh or fish)\n", args[0])
		return exitUsage
	}
	return exitOK
}

func zshDescribed() string {
	var b strings.Builder
	for i, c := range commands {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "'%s:%s'", c.name, strings.NewReplacer("'", "", ":", "\\:").Replace(c.summary))
	}
	return b.String()
}

func fishQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

// runManCmd prints the man page kontext(1) in roff, from the command table
// (the release archives carry it).
func runManCmd(ctx context.Context, g *factory, args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(g.io.ErrOut, "kontext man: takes no arguments\n")
		return exitUsage
	}
	writeMan(g.io.Out)
	return exitOK
}

func writeMan(w io.Writer) {
	esc := strings.NewReplacer(`\`, `\e`, "-", `\-`, "'", `\(aq`).Replace
	line := func(s string) string { // a leading dot would be a roff request
		s = esc(s)
		if strings.HasPrefix(s, ".") {
			s = `\&` + s
		}
		return s
	}
	// No date in the header: the same version gives the same page.
	fmt.Fprintf(w, ".TH KONTEXT 1 \"\" \"kontext %s\" \"User Commands\"\n", esc(engine.Version))
	fmt.Fprintf(w, ".SH NAME\nkontext \\- git\\-native project knowledge: which decisions, conventions and learnings govern these files, and why\n")
	fmt.Fprintf(w, ".SH SYNOPSIS\n.B kontext\n[\\-C dir] [\\-\\-json | \\-\\-jq expr] [\\-\\-color auto|always|never] \\fIcommand\\fR [arguments]\n")
	fmt.Fprintf(w, ".SH DESCRIPTION\nkontext reads the decisions (ADRs), conventions, learnings, incidents and architecture notes a repository keeps as Markdown, and answers which of them govern which files. It stages new and changed entries into the git index and never commits.\n")
	fmt.Fprintf(w, ".SH COMMANDS\n")
	for _, c := range commands {
		fmt.Fprintf(w, ".TP\n.B %s %s\n%s\n", c.name, line(c.args), line(c.summary))
		if c.example != "" {
			fmt.Fprintf(w, ".br\nExample: %s\n", line(strings.ReplaceAll(c.example, "\n  ", "; ")))
		}
	}
	fmt.Fprintf(w, `.SH GLOBAL FLAGS
.TP
.B \-C dir
run as if started in dir
.TP
.B \-\-json
print JSON instead of text (errors go to stderr as the API envelope)
.TP
.B \-\-jq expr
filter the JSON with a jq program (implies \-\-json)
.TP
.B \-\-color mode
auto, always or never
.TP
.B \-\-progress jsonl
stream progress events as JSON lines on stderr
.SH EXIT STATUS
0 ok, 1 operational error, 2 usage or invalid input, 3 a check found something, 10 brief over budget, 130 interrupted.
.SH LICENSE
%s
`, esc(License))
}
