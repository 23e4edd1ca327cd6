// Package shell spells a command line as a POSIX shell reads it back: the
// one owner of how the toolkit's advice quotes a word, so that every
// command a message advises runs as printed, pasted into sh or bash.
//
// Invariants:
//   - Join(argv) read by sh gives argv back, word for word.
//   - A word made only of letters, digits and -_=.,/:@+% is left bare (a
//     path reads as itself); any other is single-quoted, a quote inside
//     written as '\”.
package shell

import "strings"

// Quote is word as a shell reads it back as one word.
func Quote(word string) string {
	if word != "" && strings.Trim(word, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/:@+%") == "" {
		return word
	}
	return "'" + strings.ReplaceAll(word, "'", `'\''`) + "'"
}

// Join is argv as one command line, each word quoted.
func Join(argv []string) string {
	q := make([]string, len(argv))
	for i, w := range argv {
		q[i] = Quote(w)
	}
	return strings.Join(q, " ")
}
