package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/kontext/kontext/engine"
)

// globalFlags are the flags every command takes, for completions and the
// man page.
var globalFlags = []string{"-C", "--json", "--jq", "--text", "--output-format", "--wide", "--color", "--progress", "--version", "--help"}

// commandFlags are a command's own flags ("--kind --tag --all"), read from
// its flag set like -h does.
func commandFlags(c *command) string {
	var names []string
	seen := map[string]bool{}
	for _, fs := range helpFlags(c, nil) {
		fs.VisitAll(func(f *flag.Flag) {
			if !seen[f.Name] {
				seen[f.Name] = true
				names = append(names, dashes(f.Name))
			}
		})
	}
	return strings.Join(names, " ")
}

// bashCommandFlags is the case arms completing each command's flags.
func bashCommandFlags() string {
	var b strings.Builder
	for i := range commands {
		if f := commandFlags(&commands[i]); f != "" {
			fmt.Fprintf(&b, "\t\t%s) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return ;;\n", commands[i].name, f)
		}
	}
	return b.String()
}

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
		fmt.Fprintf(g.io.ErrOut, "kontext completion: name one shell: bash, zsh, fish or powershell\n")
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
		-C|--jq|--color|--progress|--output-format) ((i++)) ;;
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [[ -n $cmd && $cur == -* ]]; then
		case $cmd in
%s		esac
	fi
	case $prev in
	-C) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--output-format) COMPREPLY=($(compgen -W "json text" -- "$cur")); return ;;
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
	completion) COMPREPLY=($(compgen -W "bash zsh fish powershell" -- "$cur")) ;;
	*) COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
}
complete -o default -F _kontext kontext
`, bashCommandFlags(), flags, names, names)
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
		completion) _values 'shell' bash zsh fish powershell ;;
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
		fmt.Fprintf(w, "complete -c kontext -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish powershell'\n")
		for i := range commands {
			for _, f := range strings.Fields(commandFlags(&commands[i])) {
				fmt.Fprintf(w, "complete -c kontext -n '__fish_seen_subcommand_from %s' -l %s\n", commands[i].name, strings.TrimLeft(f, "-"))
			}
		}
		fmt.Fprintf(w, "complete -c kontext -l json -d 'print JSON'\ncomplete -c kontext -l jq -r -d 'filter the JSON with jq'\n")
		fmt.Fprintf(w, "complete -c kontext -l color -r -a 'auto always never'\ncomplete -c kontext -s C -r -a '(__fish_complete_directories)'\n")
	case "powershell":
		writePowerShell(w)
	default:
		fmt.Fprintf(g.io.ErrOut, "kontext completion: unknown shell %q (bash, zsh, fish or powershell)\n", args[0])
		return exitUsage
	}
	return exitOK
}

// writePowerShell prints a completer for PowerShell: commands (with
// their summaries), each command's flags, and the global flags.
func writePowerShell(w io.Writer) {
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	fmt.Fprintf(w, "# PowerShell completion for kontext (kontext completion powershell | Out-String | Invoke-Expression)\n")
	fmt.Fprintf(w, "$kontextCommands = @{\n")
	for _, c := range commands {
		fmt.Fprintf(w, "    %s = %s\n", q(c.name), q(c.summary))
	}
	fmt.Fprintf(w, "}\n$kontextFlags = @{\n")
	for i := range commands {
		fmt.Fprintf(w, "    %s = @(%s)\n", q(commands[i].name), strings.Join(quoteAll(strings.Fields(commandFlags(&commands[i])), q), ", "))
	}
	fmt.Fprintf(w, "}\n$kontextGlobal = @(%s)\n", strings.Join(quoteAll(globalFlags, q), ", "))
	fmt.Fprint(w, `Register-ArgumentCompleter -Native -CommandName kontext -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @($commandAst.CommandElements | Select-Object -Skip 1 | ForEach-Object { $_.ToString() })
    $cmd = $words | Where-Object { $_ -notlike '-*' -and $kontextCommands.ContainsKey($_) } | Select-Object -First 1
    if (-not $cmd -and $wordToComplete -notlike '-*') {
        $kontextCommands.GetEnumerator() | Where-Object { $_.Key -like "$wordToComplete*" } | Sort-Object Key | ForEach-Object {
            [System.Management.Automation.CompletionResult]::new($_.Key, $_.Key, 'ParameterValue', $_.Value)
        }
        return
    }
    $flags = $kontextGlobal
    if ($cmd) { $flags = $kontextFlags[$cmd] + $kontextGlobal }
    $flags | Where-Object { $_ -like "$wordToComplete*" } | ForEach-Object {
        [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterName', $_)
    }
}
`)
}

func quoteAll(xs []string, q func(string) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = q(x)
	}
	return out
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
		for _, l := range flagLines(helpFlags(&c, nil)) {
			fmt.Fprintf(w, ".br\n%s\n", line(strings.TrimSpace(l)))
		}
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
.B \-\-text
human text (the default); precedence \-\-jq > \-\-json > \-\-text > \-\-output\-format
.TP
.B \-\-output\-format json|text
the output choice as a value
.TP
.B \-\-wide
tables show every column whole (default: fit the terminal or $COLUMNS)
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
