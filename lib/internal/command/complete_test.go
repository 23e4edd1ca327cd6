package command

import (
	"os"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// completing runs a tool app, as the completion scripts do, on the words
// before the cursor and cur, and returns what it printed and whether its
// action ran.
func completing(t *testing.T, cur string, before ...string) (string, bool) {
	t.Helper()
	ran := false
	var out strings.Builder
	app := Conventions(&cli.App{Name: "tool", Writer: &out, ErrWriter: &out,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}},
			&cli.StringFlag{Name: "cursor"},
			&cli.BoolFlag{Name: "markers"},
		},
		Action: func(*cli.Context) error { ran = true; return nil },
	})
	Choices(app, "format", "table", "tsv", "csv")
	args := append(append(append([]string{"tool"}, before...), cur), completionFlag)
	saved := os.Args
	os.Args = args
	defer func() { os.Args = saved }()
	if err := app.Run(Interspersed(app, args)); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return out.String(), ran
}

func TestCompletingADoubleDashListsTheLongFlagsAndNeverRunsTheCommand(t *testing.T) {
	out, ran := completing(t, "--")
	if ran {
		t.Fatal("the action ran while completing")
	}
	for _, want := range []string{"--format\n", "--cursor\n", "--markers\n", "--help\n", "--version\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in %q", want, out)
		}
	}
	if strings.Contains(out, "-f\n") || strings.Contains(out, completionFlag) {
		t.Errorf("short or hidden flag offered for --: %q", out)
	}
}

func TestCompletingAfterADoubleDashOffersNothingAndRunsNothing(t *testing.T) {
	for _, before := range [][]string{{"--"}, {"store", "--", "tally"}} {
		if out, ran := completing(t, "--r", before...); ran || out != "" {
			t.Errorf("%q: ran %v, printed %q", before, ran, out)
		}
	}
}

func TestCompletingAFlagsValueOffersItsChoices(t *testing.T) {
	for _, tc := range []struct {
		cur    string
		before []string
		want   string
	}{
		{"", []string{"--format"}, "table\ntsv\ncsv\n"},
		{"t", []string{"web", "-f"}, "table\ntsv\n"},
		{"c", []string{"--format", "="}, "csv\n"},
		{"--format=ts", nil, "--format=tsv\n"},
		{"", []string{"--cursor"}, ""},
		{"--ma", nil, "--markers\n"},
		{"", []string{"--markers"}, ""},
	} {
		out, ran := completing(t, tc.cur, tc.before...)
		if ran || out != tc.want {
			t.Errorf("%q then %q: ran %v, printed %q, want %q", tc.before, tc.cur, ran, out, tc.want)
		}
	}
}
