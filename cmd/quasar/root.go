package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// Exit codes, documented in docs/cli.md; scripts and CI rely on them.
const (
	exitOK       = 0 // every assertion holds
	exitInvalid  = 1 // some assertion is violated
	exitBadInput = 2 // bad usage or bad input (model errors included)
	exitUnknown  = 3 // a limit was hit or the run was interrupted
	exitInternal = 4 // a bug in quasar: a recovered panic
)

// exitError ends a command with a given exit code. A nil err means that the
// command has already printed everything the user needs (a verdict line).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError is a mistake in the command line: bad flags, wrong arguments.
type usageError struct {
	cmd *cobra.Command
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// streams are the command's outside world; tests substitute them.
type streams struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// New builds the root command writing to the given streams. Nothing is
// registered globally: every call builds a fresh command tree.
func New(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	st := &streams{stdin: stdin, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:   "quasar",
		Short: "Quasar checks concurrent data structures for (quasi-)linearizability",
		Long: `Quasar checks concurrent data structures against sequential specifications:
linearizability and quasi-linearizability of bounded models written in a
CSP#-like language, and of histories recorded from real runs.

Exit codes: 0 every assertion holds, 1 some assertion is violated, 2 bad usage
or bad input, 3 a limit was hit (verdict unknown), 4 internal error.`,
		// Errors and usage are printed by Main, once, in our format.
		SilenceErrors: true,
		SilenceUsage:  true,
		// Bare "quasar" prints help.
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownSubcommand(cmd, args[0])
			}
			return cmd.Help()
		},
		Args: cobra.ArbitraryArgs,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &usageError{cmd, err}
	})
	root.CompletionOptions.DisableDefaultCmd = true
	for _, sub := range subcommands(st) {
		root.AddCommand(sub)
	}
	return root
}

// subcommands lists the commands of the tool, each built by its own
// constructor.
func subcommands(st *streams) []*cobra.Command {
	return []*cobra.Command{
		newCheckCmd(st),
		newVetCmd(st),
		newFmtCmd(st),
		newQuasiFactorCmd(st),
		newLTSCmd(st),
		newModelsCmd(st),
		newHistoryCmd(st),
		newPaperCmd(st),
		newVersionCmd(st),
	}
}

// Main runs quasar with the process's arguments and streams and returns the
// exit code.
func Main() int {
	// The first Ctrl-C cancels the search, which ends with verdict unknown
	// and prints the results so far; after it, signals get their default
	// action again, so that a second Ctrl-C kills a stuck run.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	return execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// execute runs one command line and turns its outcome into an exit code.
// A panic anywhere below is a bug: it is reported as an internal error with
// exit code 4, never as bad input.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return protect(stderr, func() int {
		root := New(stdin, stdout, stderr)
		root.SetArgs(args)
		return report(stderr, root.ExecuteContext(ctx))
	})
}

// protect runs f and turns a panic into an internal error: one line on
// stderr (the stack goes to a file it names, not to the terminal) and exit
// code 4.
func protect(stderr io.Writer, f func() int) (code int) {
	defer func() {
		if r := recover(); r != nil {
			where := ""
			if file, err := os.CreateTemp("", "quasar-crash-*.txt"); err == nil {
				fmt.Fprintf(file, "quasar %s: internal error: %v\n\n%s", strings.Join(os.Args[1:], " "), r, debug.Stack())
				file.Close()
				where = " (stack in " + file.Name() + ")"
			}
			fmt.Fprintf(stderr, "quasar: internal error: %v; this is a bug, please report it with the command line and input%s\n", r, where)
			code = exitInternal
		}
	}()
	return f()
}

// report prints err (if it needs printing) and returns the exit code.
func report(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			printError(stderr, ee.err)
		}
		return ee.code
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "%s: %v\n", ue.cmd.CommandPath(), ue.err)
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", ue.cmd.CommandPath())
		return exitBadInput
	}
	// Cobra reports unknown commands and argument-count mistakes as plain
	// errors; everything that reaches here came from the user's input.
	printError(stderr, err)
	return exitBadInput
}

// group makes cmd a group of subcommands: run alone or with an unknown
// subcommand, it is a usage error that lists the subcommands.
func group(cmd *cobra.Command, subs ...*cobra.Command) *cobra.Command {
	cmd.AddCommand(subs...)
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return unknownSubcommand(cmd, args[0])
		}
		var names []string
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() {
				names = append(names, c.Name())
			}
		}
		return &usageError{cmd, fmt.Errorf("missing subcommand (%s)", strings.Join(names, ", "))}
	}
	return cmd
}

func unknownSubcommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q", name)
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", strings.Join(s, " or "))
	}
	return &usageError{cmd, errors.New(msg)}
}
