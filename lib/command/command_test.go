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
