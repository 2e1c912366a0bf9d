package entry

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Written-out dates some ADR logs use ("March 1, 2024", "1 March 2024").
var textDateLayouts = []string{
	"January 2, 2006", "January 2 2006", "Jan 2, 2006", "Jan 2 2006",
	"2 January 2006", "2 Jan 2006", "January 2006",
}

// ParseDate reads a date as ADR logs and frontmatter write it and returns it
// as YYYY-MM-DD: ISO (also the date part of a timestamp), DD/MM/YYYY,
// DD/MM/YY (two-digit years are 20YY) and written-out month names. Text after
// the date ("2019-05-13, updated 2020-01-02") is ignored, because real logs
// annotate their dates. It reports false when no valid calendar date leads.
func ParseDate(raw string) (string, bool) {
	s := strings.TrimSpace(raw)
	s = strings.Trim(s, "*_`\"'")
	s = strings.TrimSpace(s)
	if m, n := isoDate(s); n > 0 && !digitAfter(s, n) {
		return validDate(m[0], m[1], m[2])
	}
	if m, n := dmyDate(s); n > 0 && !digitAfter(s, n) {
		y := m[2]
		if len(y) == 2 {
			y = "20" + y
		}
		return validDate(y, m[1], m[0])
	}
	for _, layout := range textDateLayouts {
		if d, ok := parseTextDate(s, layout); ok {
			return d, true
		}
	}
	return "", false
}

// parseTextDate tries layout on the leading words of s, so trailing text is
// allowed as for numeric dates.
func parseTextDate(s, layout string) (string, bool) {
	words := strings.Fields(s)
	n := len(strings.Fields(layout))
	if len(words) < n {
		return "", false
	}
	cand := strings.TrimRight(strings.Join(words[:n], " "), ".,;:")
	t, err := time.Parse(layout, cand)
	if err != nil {
		return "", false
	}
	return t.Format("2006-01-02"), true
}

func digitAfter(s string, i int) bool {
	return i < len(s) && s[i] >= '0' && s[i] <= '9'
}

func validDate(ys, ms, ds string) (string, bool) {
	y, _ := strconv.Atoi(ys)
	m, _ := strconv.Atoi(ms)
	d, _ := strconv.Atoi(ds)
	if y < 1 || m < 1 || m > 12 || d < 1 || d > 31 {
		return "", false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	// time.Date normalises 31 April to 1 May; such a date was not valid.
	if t.Year() != y || int(t.Month()) != m || t.Day() != d {
		return "", false
	}
	return t.Format("2006-01-02"), true
}

// isoDate matches a year-first date at the start of s: 4 digits, then
// twice one of "-/." and 1 or 2 digits (2024-03-01, 2024/3/1, 2024.03.01;
// also the date part of a timestamp).
func isoDate(s string) ([3]string, int) { return dateRuns(s, "-/.", [3][]int{{4}, {2, 1}, {2, 1}}) }

func isoDateLen(s string) int {
	_, n := isoDate(s)
	return n
}

// dmyDate matches a day-first date at the start of s, as European ADR logs
// write it (09/04/2018, 9.4.18, 09-04-2018): day and month of 1 or 2
// digits and a year of 4 or else 2, each after one of "/.-".
func dmyDate(s string) ([3]string, int) { return dateRuns(s, "/.-", [3][]int{{2, 1}, {2, 1}, {4, 2}}) }

// dateRuns matches three runs of ASCII digits at the start of s with one
// byte of seps between them; each run is as long as the first of its lens
// that s has the digits for. It returns the runs and the length matched,
// 0 when s does not start so.
func dateRuns(s, seps string, lens [3][]int) ([3]string, int) {
	var m [3]string
	i := 0
	for k := range lens {
		if k > 0 {
			if i >= len(s) || !strings.ContainsRune(seps, rune(s[i])) {
				return m, 0
			}
			i++
		}
		n := 0
		for i+n < len(s) && n < 4 && s[i+n] >= '0' && s[i+n] <= '9' {
			n++
		}
		l := 0
		for _, want := range lens[k] {
			if want <= n {
				l = want
				break
			}
		}
		if l == 0 {
			return m, 0
		}
		m[k], i = s[i:i+l], i+l
	}
	return m, i
}

// digits returns the end of the run of at most hi ASCII digits at s[i:],
// or -1 when the run is shorter than lo.
func digits(s string, i, lo, hi int) int {
	j := i
	for j < len(s) && j-i < hi && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j-i < lo {
		return -1
	}
	return j
}

// AddReviewAfter returns date (YYYY-MM-DD, or anything ParseDate reads) plus
// the review_after duration after ("180d", "2w", "6m", "1y"). Months and
// years add calendar months clamped to the end of the target month
// (2026-01-31 + 1m = 2026-02-28), so a review never slips into the month after.
func AddReviewAfter(date, after string) (string, error) {
	d, ok := ParseDate(date)
	if !ok {
		return "", fmt.Errorf("not a date: %q", date)
	}
	t, _ := time.Parse("2006-01-02", d)
	num, unit, ok := duration(strings.ToLower(strings.TrimSpace(after)))
	if !ok {
		return "", fmt.Errorf("not a review_after duration (want e.g. 180d, 2w, 6m, 1y): %q", after)
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		return "", errors.New("review_after out of range")
	}
	switch unit {
	case 'd':
		t = t.AddDate(0, 0, n)
	case 'w':
		t = t.AddDate(0, 0, 7*n)
	case 'm':
		t = addMonths(t, n)
	case 'y':
		t = addMonths(t, 12*n)
	}
	if t.Year() > 9999 {
		return "", errors.New("review_after out of range")
	}
	return t.Format("2006-01-02"), nil
}

// addMonths adds calendar months and clamps the day to the target month's
// length (time.AddDate would overflow 31 January into March).
func addMonths(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	total := int(m) - 1 + n
	ty := y + total/12
	tm := time.Month(total%12 + 1)
	last := time.Date(ty, tm+1, 0, 0, 0, 0, 0, time.UTC).Day()
	if d > last {
		d = last
	}
	return time.Date(ty, tm, d, 0, 0, 0, 0, time.UTC)
}

// duration reads a review_after duration: up to 6 digits, optional
// spaces, and a unit ("180d", "2w", "6m", "1y"; also "2 weeks", "1 year").
// unit is its first letter.
func duration(s string) (num string, unit byte, ok bool) {
	i := digits(s, 0, 1, 6)
	if i < 0 {
		return "", 0, false
	}
	num, rest := s[:i], strings.TrimLeft(s[i:], "\t\n\f\r ")
	switch rest {
	case "d", "day", "days", "w", "week", "weeks", "m", "month", "months", "y", "year", "years":
		return num, rest[0], true
	}
	return "", 0, false
}
