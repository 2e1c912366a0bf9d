package jsonin

import (
	"reflect"
	"strings"
)

// CheckText rejects a control character in any string of a write operation's input: NUL,
// ESC, BEL and the other C0 controls, DEL and the C1 controls. Tab and newline are text
// (a carriage return only as part of a CRLF line end). What a write stores is read back
// into terminals, briefs and prompts, so it is refused at the door, before anything is
// planned; the error names the field.
func CheckText(in any) error {
	return checkValue(reflect.ValueOf(in), "", 0)
}

func checkValue(v reflect.Value, field string, depth int) error {
	if depth > 64 || !v.IsValid() {
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return checkValue(v.Elem(), field, depth+1)
	case reflect.String:
		if i, r, bad := controlAt(v.String()); bad {
			return Errorf(orInput(field), "holds the control character %U at byte %d; only tab and newline are allowed", r, i)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := strings.Split(f.Tag.Get("json"), ",")[0]
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if f.Anonymous && f.Tag.Get("json") == "" {
				name = ""
			}
			if err := checkValue(v.Field(i), join(field, name), depth+1); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // raw JSON or bytes: not text
		}
		for i := 0; i < v.Len(); i++ {
			if err := checkValue(v.Index(i), field, depth+1); err != nil {
				return err
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			key := field
			if it.Key().Kind() == reflect.String {
				if err := checkValue(it.Key(), field, depth+1); err != nil {
					return err
				}
				key = join(field, it.Key().String())
			}
			if err := checkValue(it.Value(), key, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// controlAt finds the first control character of s other than tab, newline and CR before LF.
func controlAt(s string) (int, rune, bool) {
	for i, r := range s {
		switch {
		case r == '\t' || r == '\n':
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			return i, r, true
		}
	}
	return 0, 0, false
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "." + b
}

func orInput(f string) string {
	if f == "" {
		return "input"
	}
	return f
}
