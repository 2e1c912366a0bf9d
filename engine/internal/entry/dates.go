package entry

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
)

var (
	// Year first: 2024-03-01, 2024/03/01, 2024.03.01 (also the date part of a timestamp).
	isoDateRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})`) })
	// Day first, as European ADR logs write it: 09/04/2018, 9.4.18, 09-04-2018.
	dmyDateRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{1,2})[/.\-](\d{1,2})[/.\-](\d{4}|\d{2})`) })
	// A review_after duration: "180d", "2w", "6m", "1y" (long unit names tolerated).
	durationRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\d{1,6})\s*(d|days?|w|weeks?|m|months?|y|years?)$`)
	})
	// An ADR number as users type it: 7, 0007, ADR-7, adr-0007, ADR7, ADR #7.
	adrNumberRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^(?:adr[\s_#-]*)?#?(\d{1,9})$`) })
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
	if m := isoDateRE().FindStringSubmatch(s); m != nil && !digitAfter(s, len(m[0])) {
		return validDate(m[1], m[2], m[3])
	}
	if m := dmyDateRE().FindStringSubmatch(s); m != nil && !digitAfter(s, len(m[0])) {
		y := m[3]
		if len(y) == 2 {
			y = "20" + y
		}
		return validDate(y, m[2], m[1])
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
	m := durationRE().FindStringSubmatch(strings.ToLower(strings.TrimSpace(after)))
	if m == nil {
		return "", fmt.Errorf("not a review_after duration (want e.g. 180d, 2w, 6m, 1y): %q", after)
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return "", errors.New("review_after out of range")
	}
	switch m[2][0] {
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

// ParseADRNumber reads an ADR number as users and links write it: "7",
// "0007", "ADR-7", "adr-0007", "ADR7", "ADR 7", "#7".
func ParseADRNumber(s string) (int, bool) {
	m := adrNumberRE().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, false
	}
	return n, true
}

// leadingNumber returns the digits a file stem starts with ("0007-x" →
// "0007", 7), also after an "adr-" prefix. Date-named stems
// (2024-03-01-x) have no ADR number: their digits are a year.
func leadingNumber(stem string) (string, int, bool) {
	s := stem
	if len(s) > 3 && strings.EqualFold(s[:3], "adr") {
		s = strings.TrimLeft(s[3:], "-_ #")
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i > 9 {
		return "", 0, false
	}
	if _, ok := ParseDate(s); ok && isoDateRE().MatchString(s) {
		return "", 0, false
	}
	if _, ok := DatePrefix(s); ok {
		return "", 0, false // log4brains' 20241201-x: a date, not ADR 20241201
	}
	if i < len(s) && unicode.IsLetter(rune(s[i])) {
		// "3d-rendering" is a name, not ADR 3.
		return "", 0, false
	}
	n, _ := strconv.Atoi(s[:i])
	return s[:i], n, true
}

// DatePrefix reads the 8-digit YYYYMMDD- prefix log4brains names its
// records with ("20241201-use-x" → "2024-12-01"); false when stem does not
// start with a valid date so written.
func DatePrefix(stem string) (string, bool) {
	if len(stem) < 9 || stem[8] != '-' {
		return "", false
	}
	for i := 0; i < 8; i++ {
		if stem[i] < '0' || stem[i] > '9' {
			return "", false
		}
	}
	iso := stem[:4] + "-" + stem[4:6] + "-" + stem[6:8]
	if _, err := time.Parse("2006-01-02", iso); err != nil {
		return "", false
	}
	return iso, true
}
