package command

import (
	"fmt"
	"io"
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
