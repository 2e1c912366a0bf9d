package kb

import (
	"reflect"
	"testing"

	"github.com/kontext/kontext/engine/internal/entry"
)

// derivedFields are the fields a read sets after parsing: an entry that
// differs from its parse only in these is stored as a reference.
var derivedFields = map[string]bool{
	"Supersedes": true, "SupersededBy": true, "Links": true, "Paths": true,
	"PathsSource": true, "FilePaths": true, "Extra": true,
}

// TestSameParse changes each field of a full entry in turn, to another
// value and between nil and empty, and requires sameParse to answer what
// reflect.DeepEqual of the two entries without their derived fields does.
// A field added to entry.Entry fails it until sameParse compares it.
func TestSameParse(t *testing.T) {
	derived := func(e entry.Entry) entry.Entry {
		v := reflect.ValueOf(&e).Elem()
		for name := range derivedFields {
			f := v.FieldByName(name)
			f.Set(reflect.Zero(f.Type()))
		}
		return e
	}
	set := func(f reflect.Value, variant int) bool {
		switch f.Interface().(type) {
		case string:
			f.SetString([]string{"a", "b", ""}[variant])
		case int:
			f.SetInt(int64(variant))
		case bool:
			f.SetBool(variant == 1)
		case []string:
			f.Set(reflect.ValueOf([][]string{{"a"}, {"a", "b"}, {}}[variant]))
		case []entry.TypedLink:
			f.Set(reflect.ValueOf([][]entry.TypedLink{{{Type: "t", Target: "x"}}, {{Type: "t", Target: "y"}}, {}}[variant]))
		case map[string]any:
			f.Set(reflect.ValueOf([]map[string]any{{"k": "v"}, {"k": "w"}, {}}[variant]))
		default:
			return false
		}
		return true
	}
	var full entry.Entry
	typ := reflect.TypeOf(full)
	base := reflect.ValueOf(&full).Elem()
	for i := range typ.NumField() {
		sf := typ.Field(i)
		if !sf.IsExported() {
			if sf.Name != "placeholder" { // compared through IsTemplate
				t.Fatalf("entry.Entry has a new unexported field %s: compare it in sameParse", sf.Name)
			}
			continue
		}
		if !set(base.Field(i), 0) {
			t.Fatalf("entry.Entry.%s has a type this test cannot vary (%s): extend the test and sameParse", sf.Name, sf.Type)
		}
	}
	if !sameParse(&full, &full) {
		t.Fatal("an entry differs from itself")
	}
	for i := range typ.NumField() {
		sf := typ.Field(i)
		if !sf.IsExported() {
			continue
		}
		for variant := 1; variant <= 2; variant++ {
			other := full
			set(reflect.ValueOf(&other).Elem().Field(i), variant)
			if reflect.DeepEqual(base.Field(i).Interface(), reflect.ValueOf(other).Field(i).Interface()) {
				continue // a bool has two values
			}
			want := reflect.DeepEqual(derived(full), derived(other))
			if got := sameParse(&full, &other); got != want {
				t.Errorf("%s changed (variant %d): sameParse %v, want %v", sf.Name, variant, got, want)
			}
			if want == derivedFields[sf.Name] {
				continue
			}
			t.Errorf("%s changed (variant %d): equal %v, but derived is %v", sf.Name, variant, want, derivedFields[sf.Name])
		}
	}
	// A nil list is not an empty one (the stored reference restores the
	// parse's own).
	a, b := full, full
	a.Tags, b.Tags = nil, []string{}
	if sameParse(&a, &b) {
		t.Error("nil and empty Tags compare equal")
	}
}
