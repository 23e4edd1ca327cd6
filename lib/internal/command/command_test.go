package command

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestAFlagTheParserRefusesIsAUsageErrorNamingTheBinary(t *testing.T) {
	app := Conventions(&cli.App{Name: "tool", Writer: io.Discard, ErrWriter: io.Discard, Action: func(*cli.Context) error { return nil }})
	err := app.Run([]string{"tool", "--no-such-flag"})
	if !IsUsage(err) || !strings.HasPrefix(err.Error(), "tool: flag provided but not defined: -no-such-flag; see tool --help") {
		t.Fatalf("got %v (usage %v)", err, IsUsage(err))
	}
}

func TestARuntimeErrorIsNotAUsageErrorEvenWrapped(t *testing.T) {
	if IsUsage(fmt.Errorf("tool: disk full")) || !IsUsage(fmt.Errorf("wrapped: %w", Usagef("tool: bad"))) {
		t.Fatal("IsUsage must tell usage errors, wrapped or not, from the rest")
	}
}

func TestOptionsAfterOperandsAreMovedBeforeThemUpToADoubleDash(t *testing.T) {
	app := &cli.App{Flags: []cli.Flag{
		&cli.StringFlag{Name: "format", Aliases: []string{"f"}},
		&cli.BoolFlag{Name: "markers"},
		&cli.StringSliceFlag{Name: "against"},
	}}
	for _, tc := range []struct{ in, want string }{
		{"tgread web --format tsv", "tgread --format tsv web"},
		{"tgread web --format=tsv a b --markers", "tgread --format=tsv --markers web a b"},
		{"tgread -f csv - --markers", "tgread -f csv --markers -"},
		{"tgcheck web --against a=x --against b=y", "tgcheck --against a=x --against b=y web"},
		{"tgread web --no-such x", "tgread web --no-such x"},
		{"feed s1 --markers s2 -- tally --format x --run d", "feed --markers s1 s2 -- tally --format x --run d"},
		{"tgread web --format", "tgread web --format"},
		{"tgread web --help", "tgread --help web"},
	} {
		if got := strings.Join(Interspersed(app, strings.Fields(tc.in)), " "); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestVersionIsOneLineOfModuleVersionRevisionAndTime(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "917f69d1"},
		{Key: "vcs.time", Value: "2026-12-01T21:10:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	if got, want := version(bi), "(devel) revision=917f69d1 time=2026-12-01T21:10:00Z modified go=go1.26.0"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	installed := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.3.0"}}
	if got, want := version(installed), "v0.3.0 go=go1.26.0"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestVersionFlagPrintsOneLineAndRunsNothing(t *testing.T) {
	var out strings.Builder
	ran := false
	app := Conventions(&cli.App{Name: "tool", Writer: &out, ErrWriter: &out, Action: func(*cli.Context) error { ran = true; return nil }})
	if err := app.Run([]string{"tool", "--version"}); err != nil || ran {
		t.Fatalf("err %v, ran %v", err, ran)
	}
	if got := out.String(); !strings.HasPrefix(got, "tool version ") || strings.Count(got, "\n") != 1 {
		t.Errorf("got %q", got)
	}
}

func TestStatusIs0ForNoError2ForAUsageErrorAnd1ForTheRest(t *testing.T) {
	var out strings.Builder
	if s := Status(&out, nil); s != 0 || out.Len() != 0 {
		t.Errorf("nil: status %d, printed %q", s, out.String())
	}
	if s := Status(&out, Usagef("tool: bad")); s != 2 || out.String() != "tool: bad\n" {
		t.Errorf("usage: status %d, printed %q", s, out.String())
	}
	out.Reset()
	if s := Status(&out, fmt.Errorf("tool: disk full")); s != 1 || out.String() != "tool: disk full\n" {
		t.Errorf("runtime: status %d, printed %q", s, out.String())
	}
}
