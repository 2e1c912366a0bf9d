// Package procgroup starts a command in a process group of its own and
// kills that whole group, so a timeout also stops what the command
// started (verify runs, model commands).
package procgroup
