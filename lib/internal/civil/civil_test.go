package civil

import (
	"testing"
	"time"
)

// Every day from year -1000 to 3000 is the day time.Date says, and every
// month has the days time.Date normalises it to.
func TestEveryDayIsTheDayTheStandardLibrarySays(t *testing.T) {
	for year := -1000; year <= 3000; year++ {
		for month := 1; month <= 12; month++ {
			if n := DaysIn(month, year); time.Date(year, time.Month(month), n+1, 0, 0, 0, 0, time.UTC).Day() != 1 ||
				time.Date(year, time.Month(month), n, 0, 0, 0, 0, time.UTC).Day() != n {
				t.Fatalf("%04d-%02d has %d days, not what time.Date says", year, month, n)
			}
			for _, day := range []int{1, DaysIn(month, year)} {
				want := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC).Unix()
				if got := DaysFromCivil(year, month, day); got*86400 != want {
					t.Fatalf("%04d-%02d-%02d is day %d, time.Date says second %d", year, month, day, got, want)
				}
			}
		}
	}
}
