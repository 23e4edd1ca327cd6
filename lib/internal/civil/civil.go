// Package civil is the proleptic Gregorian calendar's arithmetic that the
// fast time readers need (extract's layouts, the tape's own times): the
// days of a month, and the days from 1970-01-01 to a date.
package civil

// DaysIn returns the length of a month of the proleptic Gregorian calendar.
func DaysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// DaysFromCivil returns the days from 1970-01-01 to a date of the
// proleptic Gregorian calendar (Howard Hinnant's days_from_civil): years
// are counted from March so that the leap day ends one, and a 400-year
// era holds exactly 146097 days. Year 0's January and February fall in
// year -1, hence the floored era.
func DaysFromCivil(year, month, day int) int64 {
	y := int64(year)
	if month <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400                     // [0, 399]
	mp := int64((month + 9) % 12)          // March = 0
	doy := (153*mp+2)/5 + int64(day) - 1   // [0, 365]
	doe := yoe*365 + yoe/4 - yoe/100 + doy // [0, 146096]
	return era*146097 + doe - 719468       // 719468: days from 0000-03-01 to 1970-01-01
}
